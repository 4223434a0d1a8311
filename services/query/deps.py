"""FastAPI dependencies: the resources opened in the lifespan, as Annotated aliases."""

from typing import Annotated

from fastapi import Depends, Request

from services.query.index import PaperIndex


def get_paper_index(request: Request) -> PaperIndex:
    index: PaperIndex = request.app.state.paper_index
    return index


PaperIndexDep = Annotated[PaperIndex, Depends(get_paper_index)]
