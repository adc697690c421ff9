"""validation.checks on malformed data: every wrong shape is a finding, never a crash."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from tests.validation_data import valid_files, write_data_dir
from validation.checks import validate_data_dir

WRONG_SHAPES: list[Any] = [None, 7, {}, [[]], [{}], [None]]


def _fields() -> list[tuple[str, int | None, str]]:
    """(file, position in an array file or None, field) of every field of the valid data directory."""
    found = []
    for file, content in valid_files().items():
        if "/" not in file:
            continue  # the temporal coverage files map names to values: they have no fixed fields
        items = content if isinstance(content, list) else [content]
        for position, item in enumerate(items):
            found += [(file, position if isinstance(content, list) else None, name) for name in item]
    return found


@pytest.mark.slow
@pytest.mark.parametrize("file, position, field", _fields())
def test_a_field_of_the_wrong_shape_is_reported_not_fatal(
    tmp_path: Path, file: str, position: int | None, field: str
) -> None:
    for number, wrong in enumerate(WRONG_SHAPES):
        files = copy.deepcopy(valid_files())
        target = files[file] if position is None else files[file][position]
        target[field] = wrong

        report = validate_data_dir(write_data_dir(tmp_path / str(number), files))

        assert all(finding.file and finding.path and finding.message for finding in report.findings)
        if wrong in (7, [[]], [{}], [None]):  # no field of the data model takes these
            assert any(finding.check == "schema" and field in finding.path for finding in report.findings), wrong
