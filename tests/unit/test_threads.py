"""catalog.domain.threads: work on a second thread of the operating system, gevent's patching or not."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from catalog.domain.threads import Beside


def test_the_work_runs_on_another_thread_and_its_result_comes_back():
    beside = Beside(threading.get_native_id)
    assert beside.result() != threading.get_native_id()
    assert beside.result() == beside.result()  # asked again: the same answer, no second wait


def test_an_error_of_the_work_is_raised_by_the_caller():
    def fail() -> None:
        raise ValueError("too many buckets")

    with pytest.raises(ValueError, match="too many buckets"):
        Beside(fail).result()


def test_under_gevent_the_work_still_runs_on_a_thread_of_the_operating_system():
    """gevent's workers patch `threading` (its threads are greenlets on the caller's thread); Beside's are not."""
    program = (
        "import gevent.monkey; gevent.monkey.patch_all()\n"
        "import threading\n"
        "from catalog.domain.threads import Beside\n"
        "patched = threading.Thread(target=lambda: print(threading.get_native_id()))\n"
        "patched.start(); patched.join()\n"
        "print(threading.get_native_id())\n"
        "print(Beside(threading.get_native_id).result())\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=True)
    greenlet, caller, beside = done.stdout.split()
    assert greenlet == caller  # what gevent does to `threading`: the reason Beside exists
    assert beside != caller
