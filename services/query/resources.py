"""The query service's resources: opened in the lifespan (services/query/app.py), one object for the routes, the pages
and the consumers alike. No HTTP here: the indexer's handlers take it as they are, the HTTP edge reaches it through
services/query/http/deps.py."""

from dataclasses import dataclass

from papertrail.runtime.kafka import DeadLetterPolicy, Publisher
from schemas.events import FollowChanged
from services.query.accounts.repositories import ReaderRecords, SiteSecret
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.indexer.topic_tags import TopicTagger
from services.query.catalogue.interface import Catalogue
from services.query.catalogue.repositories import CatalogueRecords
from services.query.library.importing import ImportJobs
from services.query.library.store import LibraryStore
from services.query.recommender.recommend import ReaderModels
from services.query.settings import QuerySettings


@dataclass(frozen=True, slots=True)
class QueryResources:
    """What the routes, pages and handlers work with, opened by the lifespan."""

    settings: QuerySettings
    paper_index: PaperIndex
    catalogue: CatalogueRecords
    readers: ReaderRecords
    topic_tagger: TopicTagger
    follow_changes: Publisher
    dead_letters: DeadLetterPolicy
    library: LibraryStore
    imports: ImportJobs
    reader_models: ReaderModels
    signing: SiteSecret

    @property
    def site_secret(self) -> bytes:
        """SITE_SECRET, or a local run's own (accounts/repositories.py: SiteKeys)."""
        return self.signing.value

    @property
    def papers(self) -> Catalogue:
        """The catalogue as the readers' side reaches it."""
        return Catalogue(self.paper_index, self.catalogue)

    async def announce_follow_change(self, change: FollowChanged) -> None:
        await self.follow_changes.publish(change, key=change.user_id.encode())
