"""The application state: the catalogue served and what depends on it, created at start-up and swapped whole on reload.

A request reads one :class:`AppState` (put on it by the site's middleware);
start-up loads the catalogue (:func:`start`), and nothing else ever does. A
reload builds a complete new catalogue first and swaps in a new state, so a
request never sees a half-loaded one and a broken data set never replaces a
good one. A release whose change ledger
names an activation time still ahead is loaded at once but served only from
that time on (docs/oai-pmh.md: datestamps never earlier than the moment a
change is served).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import mmap
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from django.conf import settings

from catalog.domain import ledger
from catalog.domain.loader import DataDirError, check_data_dir, check_holds_data, shrinkage
from catalog.domain.memo import BytesLRU
from catalog.domain.model import Catalog
from catalog.domain.schema import ENTITY_KINDS, schemas
from catalog.domain.snapshot import open_catalog
from catalog.web.fleet import fleet_release
from catalog.web.ratelimit import Limits

logger = logging.getLogger("catalog")


class Telemetry(Protocol):
    """The process's telemetry handles (:mod:`svc_site.telemetry` installs the site's at start-up)."""

    def span(self, name: str, **attributes: Any) -> contextlib.AbstractContextManager[Any]: ...

    def observe_request(self, method: str, route: str | None, status: int, seconds: float) -> None: ...

    def shutdown(self) -> None: ...


class _NoSpan:
    def set_attribute(self, key: str, value: Any) -> None:
        pass


class Untraced:
    """No telemetry: spans that record nothing, requests not counted."""

    def span(self, name: str, **attributes: Any) -> contextlib.AbstractContextManager[Any]:
        return contextlib.nullcontext(_NoSpan())

    def observe_request(self, method: str, route: str | None, status: int, seconds: float) -> None:
        pass

    def shutdown(self) -> None:
        pass


class ReleaseClock:
    """The activation time of the release the master loaded last, shared by every worker it ever forked.

    A reload forks new workers and lets the old ones finish: those hold only
    the release before, and would otherwise go on answering from it after the
    new one's activation time. Reading this (8 bytes of memory shared across
    the fork) they stop answering OAI-PMH from a release that is no longer the
    one served: a request that arrives once the newer one is active is refused
    with a 503 (retried at once, by a current worker).
    """

    def __init__(self) -> None:
        self._shared = mmap.mmap(-1, 8)  # anonymous and shared: written by the master, read by its workers
        self._warned = 0  # the fleet's release this process last said it was behind (each process its own)

    def publish(self, activation: int) -> None:
        """The master loaded a release with this activation time (0: data without a ledger)."""
        self._shared[:8] = activation.to_bytes(8, "little", signed=True)

    @property
    def newest(self) -> int:
        return int.from_bytes(self._shared[:8], "little", signed=True)

    def behind_fleet(self, mine: int, fleet: int) -> None:
        """Say once per release that this replica holds an older release than the fleet serves."""
        if fleet != self._warned:
            self._warned = fleet
            logger.warning(
                "this replica holds the release of %s, but the fleet serves the release of %s since then: it answers"
                " OAI-PMH with 503 until it is reloaded or replaced (a rollout or round of reloads that ran late)",
                ledger.iso_time(mine) if mine else "data without a ledger",
                ledger.iso_time(fleet),
            )


class OaiUnavailable(NamedTuple):
    """Why a state does not answer OAI-PMH at a moment, and when to ask again."""

    reason: str
    retry_after: int


@dataclasses.dataclass(frozen=True, eq=False)
class AppState:
    """What a request reads besides itself: one catalogue, the caches that depend on it, the process's services.

    Never changed, only replaced: start-up installs the first one, a reload
    (or a pending release's activation) a new one with empty caches, a change
    of configuration (tests) one with an empty response cache. A request takes
    the state once (:class:`svc_site.middleware.DataVersionMiddleware` puts it
    on the request) and is answered from it throughout. The catalogue's derived
    values hang off the catalogue itself (:func:`catalog.domain.memo.memo_for`).
    """

    catalog: Catalog | None = None
    # Rendered bodies of this catalogue under this configuration, bounded in bytes (docs/http-caching.md).
    responses: BytesLRU = dataclasses.field(default_factory=BytesLRU)
    # A release loaded ahead of its activation time, with its own caches (warmed up before the workers fork).
    pending: AppState | None = None
    # The process's services, kept across reloads: OAI-PMH admission, the telemetry handles.
    oai_limits: Limits = dataclasses.field(default_factory=Limits)
    telemetry: Telemetry = dataclasses.field(default_factory=Untraced)
    releases: ReleaseClock = dataclasses.field(default_factory=ReleaseClock)
    # How many seconds after its activation time this process may have answered from the release before this
    # one (a late reload, docs/oai-pmh.md); 0 when it switched in time. Reported as a metric and a WARNING.
    late_by: int = 0

    def serving(self, catalog: Catalog, late_by: int = 0) -> AppState:
        """This state serving ``catalog`` instead, with empty caches and nothing pending (the same one: unchanged)."""
        if catalog is self.catalog and self.pending is None and late_by == self.late_by:
            return self
        return dataclasses.replace(self, catalog=catalog, responses=BytesLRU(), pending=None, late_by=late_by)

    def activates_after(self, now: float) -> int | None:
        """The activation time of the served release if it is still ahead of ``now`` (a start before it), else None."""
        activation = _activation(self.catalog) if self.catalog is not None else 0
        return activation if activation > now else None

    def oai_unavailable(self, moment: int, fleet: int | None = None) -> OaiUnavailable | None:
        """Why this state may not answer an OAI-PMH request that arrived at ``moment`` (None: it may).

        A release is answered from over OAI-PMH only between its activation time and that of the next one,
        so that every process that serves it dates it the same (docs/oai-pmh.md): a start before its
        release's activation has no earlier release to answer from, a worker a reload replaced holds only
        the release before, and so does a replica behind the release ``fleet`` serves (through Redis).
        """
        activation = self.activates_after(moment)
        if activation is not None:
            return OaiUnavailable(
                f"This data release is served over OAI-PMH from {ledger.iso_time(activation)}: retry then.",
                activation - moment,
            )
        mine = _activation(self.catalog) if self.catalog is not None else 0
        newest = max(self.releases.newest, fleet or 0)
        if newest > mine and moment >= newest:
            if newest > self.releases.newest:
                self.releases.behind_fleet(mine, newest)
            return OaiUnavailable("A newer data release is served now: retry.", 1)
        return None

    def at(self, now: float) -> AppState:
        """The state to answer from at POSIX time ``now``: the pending release once its activation time has come."""
        pending = self.pending
        if pending is not None and pending.catalog is not None and now >= _activation(pending.catalog):
            return pending
        return self


class Application:
    """The one reference a process keeps to its :class:`AppState`: set at start-up, swapped whole.

    Requests read :meth:`state` once each; start-up, a reload and the site's
    set-up :meth:`swap` in a new state (tests with the ``app_state`` fixture).
    """

    def __init__(self) -> None:
        self._state = AppState()
        self._lock = threading.Lock()

    def state(self, now: float | None = None) -> AppState:
        """The state served at ``now`` (default: now), a pending release once its activation time has come."""
        state = self._state
        due = state.at(time.time() if now is None else now)
        if due is not state:
            with self._lock:
                if self._state is state:
                    self._state = due
                return self._state
        return state

    def swap(self, state: AppState) -> AppState:
        """Serve ``state`` from now on; returns the one it replaces."""
        with self._lock:
            previous, self._state = self._state, state
        return previous

    def update(self, change: Callable[[AppState], AppState]) -> None:
        """Swap in ``change(state)``, atomically with respect to other swaps."""
        with self._lock:
            self._state = change(self._state)


application = Application()


def state() -> AppState:
    """The application state served now."""
    return application.state()


REQUEST_ATTRIBUTE = "svc_state"
MOMENT_ATTRIBUTE = "svc_moment"
NOT_STARTED = "no catalogue is served: start-up loads it (catalog.runtime.start), nothing else does"


def take_state(request: object) -> AppState:
    """Give ``request`` the state served now, for the whole of its answer (the site's outer middleware does).

    The moment it arrives is taken in the same step (:func:`moment_of`): an OAI-PMH answer from a release is
    dated with a moment at which that release was the one served (docs/oai-pmh.md, "Incremental harvesting").
    """
    now = time.time()
    taken = application.state(now)
    setattr(request, REQUEST_ATTRIBUTE, taken)
    setattr(request, MOMENT_ATTRIBUTE, int(now))
    return taken


def moment_of(request: object) -> int:
    """The second ``request`` took its state in (outside the site's middleware: now)."""
    moment = getattr(request, MOMENT_ATTRIBUTE, None)
    return moment if isinstance(moment, int) else int(time.time())


def state_of(request: object) -> AppState:
    """The state ``request`` is answered from: the one it took on arrival (outside the site's middleware: now's)."""
    taken = getattr(request, REQUEST_ATTRIBUTE, None)
    return taken if isinstance(taken, AppState) else state()


def catalog_of(request: object) -> Catalog:
    """The catalogue ``request`` is answered from."""
    catalog = state_of(request).catalog
    if catalog is None:
        raise RuntimeError(NOT_STARTED)
    return catalog


def use_telemetry(telemetry: Telemetry) -> Telemetry:
    """Make ``telemetry`` the process's (the site's start-up, a worker after the fork); returns the one it replaces."""
    previous = []

    def change(state: AppState) -> AppState:
        previous.append(state.telemetry)
        pending = None if state.pending is None else dataclasses.replace(state.pending, telemetry=telemetry)
        return dataclasses.replace(state, telemetry=telemetry, pending=pending)

    application.update(change)
    return previous[0]


def span(name: str, **attributes: Any) -> contextlib.AbstractContextManager[Any]:
    """A traced unit of work (catalogue load, OAI rendering); a no-op until the site installs telemetry."""
    return state().telemetry.span(name, **attributes)


def get_catalog() -> Catalog:
    """The catalogue served now; never loads one (start-up does: :func:`start`)."""
    serving = state().catalog
    if serving is None:
        raise RuntimeError(NOT_STARTED)
    return serving


def current() -> Catalog | None:
    """The catalogue served now, if any (a pending release once its activation time has come)."""
    return state().catalog


def pending() -> AppState | None:
    """A release loaded but not yet served (its activation time is ahead), with its caches."""
    return state().pending


def install(catalog: Catalog) -> None:
    """Make ``catalog`` the one every following request sees (with empty caches)."""
    application.update(lambda state: state.serving(catalog))


def start(catalog: Catalog) -> None:
    """Serve ``catalog``, loaded from the configured data directory (the start-up, once it is not refused)."""
    activation = _activation(catalog)
    previous = _publish(activation)
    now = time.time()
    # Late only if the fleet still recorded an older release after this one's activation time: its replicas
    # answered from it meanwhile. Restarts of the same release, and first starts, are not.
    late_by = int(now) - activation if activation and previous is not None and previous < activation < now else 0
    application.update(lambda state: state.serving(catalog, late_by))
    if late_by:
        _say_late(activation, late_by, "the fleet served the release before it until this replica started")
    if activation > now:
        logger.warning(
            "release of %s is not active yet: its pages are served now, OAI-PMH answers 503 with Retry-After until"
            " then (svc stamp --activate-in 0 serves a first release at once)",
            ledger.iso_time(activation),
        )


def configuration_changed() -> None:
    """The configuration changed (tests do): rendered bodies depend on it, so the response caches start empty."""

    def fresh(state: AppState) -> AppState:
        pending = None if state.pending is None else dataclasses.replace(state.pending, responses=BytesLRU())
        return dataclasses.replace(state, responses=BytesLRU(), pending=pending)

    application.update(fresh)


@contextlib.contextmanager
def serving(pending: AppState) -> Iterator[None]:
    """Serve the state ``pending`` for the duration (the master warming up a pending release before forking)."""
    previous = application.swap(pending)
    try:
        yield
    finally:
        application.swap(previous)  # it still holds ``pending``, served from its activation time on


def _activation(catalog: Catalog) -> int:
    view = catalog.ledger
    return view.activation if view is not None and view.activation is not None else 0


def shrink_refusal(before: Mapping[str, int], after: Mapping[str, int], against: str) -> str | None:
    """Why data with counts ``after`` may not replace ``before`` (None: it may), in one line.

    One rule for a reload and a start-up: a type emptied, or shrunk by more
    than ``SVC_RELOAD_MAX_SHRINK``, unless ``SVC_ACCEPT_SHRINK`` accepts it.
    """
    config = settings.SVC
    losses = shrinkage(before, after, config.reload_max_shrink)
    if not losses or config.accept_shrink:
        return None
    return (
        f"it would lose {', '.join(losses)} against {against} (SVC_RELOAD_MAX_SHRINK={config.reload_max_shrink};"
        " `svc stamp --accept-shrink` accepts a stamped release's withdrawals, SVC_ACCEPT_SHRINK=true one start)"
    )


def accepted_release_counts(catalog: Catalog) -> Mapping[str, int] | None:
    """What the served release publishes, if its withdrawals were accepted (``svc stamp --accept-shrink``).

    The acceptance is a fact of the release, read from its data directory at every start and reload: data
    that lost more than the release withdrew is still refused against these counts.
    """
    view = catalog.ledger
    if view is None or not ledger.shrink_accepted(catalog.data_dir, view.activation):
        return None
    return view.release_counts


def start_refusal(catalog: Catalog) -> str | None:
    """Why ``svc serve`` must not start on this data: it shrank too much against the ledger's last release.

    A restart must not publish by accident the mass deletion a reload refuses;
    a release whose withdrawals were accepted is compared with what it publishes instead.
    """
    view = catalog.ledger
    if view is None:
        return None
    accepted = accepted_release_counts(catalog)
    if accepted is not None:
        refusal = shrink_refusal(accepted, catalog.counts(), "the release as stamped (its withdrawals accepted)")
    elif view.previous_counts:
        refusal = shrink_refusal(view.previous_counts, catalog.counts(), "the change ledger's last release")
    else:
        return None
    return None if refusal is None else f"start refused: {refusal}"


def load() -> Catalog:
    """Read the configured data directory (raises ``DataDirError`` if it is unusable), traced."""
    data_dir = settings.SVC.data_dir
    with span("catalog.load", **{"svc.data_dir": str(data_dir)}) as load_span:
        catalog = with_ledger(open_catalog(data_dir, conforms=_conforms))
        load_span.set_attribute("svc.data_version", catalog.data_version)
        load_span.set_attribute("svc.catalog.problems", len(catalog.problems))
        for kind, count in catalog.counts().items():
            load_span.set_attribute(f"svc.catalog.{kind}", count)
    return catalog


def _conforms(directory: str, value: Mapping[str, Any]) -> bool:
    """Whether an object of a type directory matches its JSON Schema (what ``svc validate`` checks)."""
    return schemas().is_valid(ENTITY_KINDS[directory], value)


def with_ledger(catalog: Catalog) -> Catalog:
    """The catalogue with its change ledger, if the data directory has one (docs/change-ledger.md).

    A ledger that cannot be read is ignored and one that does not match the
    data is used where it matches; either is said once, as a warning, and
    the items concerned keep the datestamp rule of data without a ledger.
    """
    try:
        view = catalog.ledger or ledger.read_view(catalog)  # a snapshot brings the view svc stamp stored
    except (ledger.LedgerError, OSError, UnicodeDecodeError) as error:
        logger.warning("change ledger of %s ignored: %s", catalog.data_dir, error)
        return catalog
    if view is None:
        return catalog
    if view.unmatched_count:
        logger.warning(
            "change ledger does not match the data: %d item(s) have no entry (%s); run `svc stamp`",
            view.unmatched_count,
            ", ".join(view.unmatched),
        )
    return dataclasses.replace(catalog, ledger=view)


def check_serveable(data_dir: Path, allow_empty: bool) -> None:
    """Raise ``DataDirError`` unless ``data_dir`` exists and (unless ``allow_empty``) holds entity files.

    The start-up and every reload apply it before loading anything, so a
    wrong mount never becomes a healthy, empty catalogue (SVC_ALLOW_EMPTY_DATA).
    """
    check_data_dir(data_dir)
    if not allow_empty:
        check_holds_data(data_dir)


def reload() -> bool:
    """Re-read the data directory; keep serving the current data if the new set is broken.

    A release whose activation time is ahead waits for it (:func:`pending`),
    and the workers this reload replaces stop answering OAI-PMH from the
    release before once it is active (:class:`ReleaseClock`). One that this
    process answered from the release before after its activation time (it
    was loaded late) is served all the same, with the datestamps of its
    ledger, and said in a WARNING and the ``svc.release.late`` metric: the
    deployment was late, not the data (docs/oai-pmh.md).

    Broken means: the directory is missing or unreadable, holds no entity
    files (unless ``SVC_ALLOW_EMPTY_DATA``), a file (or
    entity kind) that loaded before now has a problem — typically a file
    caught half-copied, which would silently drop what it holds — or a type
    lost all its items or more than ``SVC_RELOAD_MAX_SHRINK`` of them (a
    directory removed or emptied by mistake), unless the new release's
    withdrawals were accepted when it was stamped. Problems the current
    data already had do not block a reload.
    """
    _current = current()  # a release whose activation time has come is the one served (and compared with) now
    serving = _current.data_version if _current else None
    try:
        check_serveable(settings.SVC.data_dir, settings.SVC.allow_empty_data)
        catalog = load()
    except DataDirError as error:
        logger.error("reload refused: %s; still serving data version %s", error, serving)
        return False
    except Exception:
        logger.exception("reload failed; still serving data version %s", serving)
        return False
    refusal = _reload_refusal(_current, catalog)
    if refusal:
        logger.error("reload refused: %s; still serving data version %s", refusal, serving)
        return False
    activation = _activation(catalog)
    _publish(activation)  # from its activation on, the old workers (and replicas) answer no harvester
    loaded = time.time()
    same_release = _current is not None and _current.ledger is not None and _current.ledger.activation == activation
    # The same release loaded again keeps what it had; a new one is late if this process answered after it.
    late_by = state().late_by if same_release else _lateness(_current, activation, int(loaded))
    counts = ", ".join(f"{count} {kind}" for kind, count in catalog.counts().items())
    if late_by and not same_release:
        _say_late(activation, late_by, "this replica answered from the release before it until then")
    if activation > loaded:
        application.update(lambda state: dataclasses.replace(state, pending=state.serving(catalog, late_by)))
        logger.info(
            "loaded data version %s (serving %s until its activation at %s): %s",
            catalog.data_version,
            serving,
            ledger.iso_time(activation),
            counts,
        )
        return True
    application.update(lambda state: state.serving(catalog, late_by))
    logger.info("reloaded data version %s (was %s): %s", catalog.data_version, serving, counts)
    return True


def _publish(activation: int) -> int | None:
    """Record the release this process serves: for its workers, and for the fleet through Redis if there is one.

    Returns the release the fleet recorded before (None: no Redis, nothing recorded, or Redis unreachable).
    """
    state().releases.publish(activation)
    fleet = fleet_release(state().oai_limits, settings.SVC.cache_url)
    return fleet.publish(activation) if fleet is not None else None


def _say_late(activation: int, late_by: int, why: str) -> None:
    logger.warning(
        "release of %s served %d s after its activation time: %s, and the release's changes keep their"
        " datestamp, so a harvester that talked to that release meanwhile may miss them; deploy every release"
        " before it activates (a longer svc stamp --activate-in)",
        ledger.iso_time(activation),
        late_by,
        why,
    )


def _reload_refusal(current: Catalog | None, catalog: Catalog) -> str | None:
    """Why ``catalog`` may not replace the ``current`` one (None: it may)."""
    if current is None:
        return None
    known = {problem.path for problem in current.problems}
    new_problems = sorted({problem.path for problem in catalog.problems} - known)
    if new_problems:
        return f"{', '.join(new_problems)} could not be loaded"
    accepted = accepted_release_counts(catalog)
    if accepted is not None:
        return shrink_refusal(accepted, catalog.counts(), "the release as stamped (its withdrawals accepted)")
    return shrink_refusal(current.counts(), catalog.counts(), "the data served")


def _lateness(current: Catalog | None, activation: int, old_answers_until: int) -> int:
    """How long after ``activation`` this process may answer from the ``current`` release (0: not at all).

    A start has nothing earlier to answer from, and data without a ledger has no activation time.
    """
    if current is None or not activation:
        return 0
    return max(old_answers_until - activation, 0)
