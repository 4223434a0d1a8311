"""ACL Anthology volume files (data/xml/<collection>.xml) → one raw record per paper and front matter. No I/O.

Content convention (the normalizer parses exactly this): the paper's `<volume>` element, carrying the
collection id as attribute `collection`, with its `<meta>` child and only that one `<paper>` or
`<frontmatter>` child. Record id = the full anthology id (`2024.acl-long.1`, `P19-1001`), front matter = paper 0.
"""

from lxml import etree

from papertrail.domain.paper_ids import anthology_id
from services.harvester.sources import SourceRecord

_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)


class MalformedVolumeFile(Exception):
    """The body is not an ACL Anthology collection file."""


def split_collection(body: bytes) -> list[SourceRecord]:
    """Every `<paper>` and `<frontmatter>` of every volume of one collection file, in file order."""
    try:
        root = etree.fromstring(body, _PARSER)
    except etree.XMLSyntaxError as exc:
        raise MalformedVolumeFile(f"not XML: {exc}") from exc
    collection_id = root.get("id")
    if root.tag != "collection" or not collection_id:
        raise MalformedVolumeFile(f"not an anthology collection file (root element {root.tag!r})")
    records: list[SourceRecord] = []
    for volume in root.iterchildren("volume"):
        volume_id = volume.get("id")
        if not volume_id:
            raise MalformedVolumeFile(f"{collection_id}: volume without id")
        # The volume's start tag and <meta> are shared by its papers: serialize them once.
        shell = etree.Element("volume", dict(volume.attrib), collection=collection_id)
        start_tag = etree.tostring(shell, encoding="unicode")[:-2] + ">"
        meta = volume.find("meta")
        meta_xml = etree.tostring(meta, encoding="unicode", with_tail=False) if meta is not None else ""
        for item in volume.iterchildren("frontmatter", "paper"):
            paper_id = "0" if item.tag == "frontmatter" else item.get("id")
            if not paper_id:
                raise MalformedVolumeFile(f"{collection_id}-{volume_id}: paper without id")
            item_xml = etree.tostring(item, encoding="unicode", with_tail=False)
            records.append(
                SourceRecord.of(
                    record_id=anthology_id(collection_id, volume_id, paper_id),
                    format="acl_xml",
                    content=f"{start_tag}{meta_xml}{item_xml}</volume>",
                    datestamp=item.get("ingest-date") or volume.get("ingest-date"),
                )
            )
    return records
