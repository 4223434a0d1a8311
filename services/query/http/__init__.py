"""The HTTP edge, shared by the API and the pages: the resources' FastAPI dependencies, the signed-in user, request
guards (body caps, parsing off the event loop), problem responses and the write limits."""
