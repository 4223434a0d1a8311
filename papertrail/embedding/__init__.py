"""A paper's vectors: the text they are made of, the models that make them (local ONNX or an endpoint), how stored
vectors are read, and "papers like these" scoring."""
