"""The title path's model server: llama.cpp's own OpenAI-compatible HTTP server, from the prebuilt xllamacpp wheel,
on a packaged GGUF model. Run by `papertrail llm --titles` with the Python of .llm/titles-venv, which has xllamacpp and
nothing of the project: this file imports only it and the standard library.

It yields the CPU: `papertrail llm --titles` starts it under `nice -n 19`, and its threads sleep rather than spin while
they wait for work (`poll = 0`), so the summarizer's embedding sweep and the other services, at normal priority, keep
the cores they need; the titles get what is left."""

import argparse
import os
import signal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", required=True, help="the GGUF file")
    parser.add_argument("--alias", required=True, help="the model's name in requests (TITLES_MODEL)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    # Titles decoded together share each step's reading of the weights, so more slots cost less CPU a title
    # (docs/benchmarks.md); TITLES_CONCURRENCY's default matches.
    parser.add_argument("--parallel", type=int, default=4, help="requests decoded together (continuous batching)")
    parser.add_argument("--context", type=int, default=512, help="context per slot: the prompt and a title fit")
    args = parser.parse_args()

    import xllamacpp  # type: ignore[import-not-found]  # in .llm/titles-venv only

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.model_alias = args.alias
    params.n_parallel = args.parallel
    params.n_ctx = args.context * args.parallel  # the slots share the context
    for cpu in (params.cpuparams, params.cpuparams_batch):
        cpu.n_threads = args.threads
        cpu.poll = 0  # threads waiting for work sleep instead of spinning on a shared machine
    params.hostnames = [args.host]
    params.port = args.port
    stop = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)  # before the server's threads start: they inherit the mask
    server = xllamacpp.Server(params)
    print(f"title server: {args.alias} on {server.listening_address}/v1", flush=True)
    signal.sigwait(stop)  # the server runs on its own threads until told to stop
    # at once: the server keeps nothing worth saving, and its own shutdown first finishes the requests in hand,
    # which at nice 19 on a busy machine takes minutes
    os._exit(0)


if __name__ == "__main__":
    main()
