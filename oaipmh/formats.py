"""The metadata formats this repository disseminates, for every item."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from oaipmh import oai_datacite, oai_dc
from oaipmh.mapping import ItemMetadata


@dataclass(frozen=True, slots=True)
class MetadataFormat:
    prefix: str
    schema: str
    namespace: str
    render: Callable[[ItemMetadata], str]


FORMATS: dict[str, MetadataFormat] = {
    module.PREFIX: MetadataFormat(module.PREFIX, module.SCHEMA, module.NAMESPACE, module.render)
    for module in (oai_dc, oai_datacite)
}
