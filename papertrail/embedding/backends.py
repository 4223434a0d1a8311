"""The embedding backend the settings choose, opened. Its own module: each backend (embedding_endpoint.py,
local_model.py) imports papertrail/embedding/embedder.py, so the factory that imports them cannot live there."""

from papertrail.embedding.embedder import LOCAL_MODELS, Embedder, EmbeddingSettings, ProcessTokenBudget, TokenBudget


def open_embedder(settings: EmbeddingSettings, budget: TokenBudget | None = None) -> Embedder:
    """The backend the settings choose, ready to embed (the local model is loaded and its files checked here)."""
    # Imported here: a service on the endpoint never loads onnxruntime.
    if settings.embedding_backend == "openai":
        from papertrail.embedding.endpoint_backend import EndpointEmbedder, make_embedding_client

        return EndpointEmbedder(make_embedding_client(settings), settings, budget or ProcessTokenBudget())
    from papertrail.embedding.local_model import LocalEmbedder, packaged_model

    return LocalEmbedder(packaged_model(LOCAL_MODELS[settings.embedding_model], settings), settings)
