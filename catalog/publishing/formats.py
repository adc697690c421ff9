"""The metadata formats this repository disseminates, for every item."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from catalog.formats import datacite_xml, dublin_core_xml
from catalog.formats.item_metadata import ItemMetadata


@dataclass(frozen=True, slots=True)
class MetadataFormat:
    prefix: str
    schema: str
    namespace: str
    render: Callable[[ItemMetadata], str]


FORMATS: dict[str, MetadataFormat] = {
    module.PREFIX: MetadataFormat(module.PREFIX, module.SCHEMA, module.NAMESPACE, module.render)
    for module in (dublin_core_xml, datacite_xml)
}
