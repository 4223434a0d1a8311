"""Real HTTP servers that receive what the matcher pushes (webhooks, Telegram's Bot API), answering as told."""

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET = "s3cret-for-tests"


class Receiver:
    """A real HTTP server answering webhook POSTs with the given statuses (and `answers`, bodies) in turn (the last one
    repeats); `silent`:
    one that takes each request and never answers (until the test ends). It listens on `address`, a loopback
    address (the whole of 127.0.0.0/8 is), so tests can have receivers at different addresses."""

    def __init__(
        self,
        statuses: list[int],
        *,
        silent: bool = False,
        address: str = "127.0.0.1",
        clock: "ManualClock | None" = None,
        takes: tuple[float, ...] = (0.0,),
        trickle_s: float = 0.0,
        answer: bytes = b"",
        answers: tuple[bytes, ...] = (),
    ) -> None:
        self.statuses = statuses
        self.requests: list[tuple[dict[str, str], bytes]] = []
        self.paths: list[str] = []
        self.released = threading.Event()
        if not silent:
            self.released.set()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["content-length"]))
                receiver.requests.append((dict(self.headers.items()), body))
                receiver.paths.append(self.path)
                receiver.released.wait()
                if clock is not None:  # the answer takes this long by the sender's clock, at no wait
                    clock.now += takes[min(len(receiver.requests), len(takes)) - 1]
                status = receiver.statuses[min(len(receiver.requests), len(receiver.statuses)) - 1]
                if trickle_s:  # the answer a byte at a time, each well inside a read's timeout
                    self.trickle(f"HTTP/1.1 {status} OK\r\ncontent-length: 0\r\n\r\n".encode(), trickle_s)
                    return
                said = answers[min(len(receiver.requests), len(answers)) - 1] if answers else answer
                self.send_response(status)
                self.send_header("content-length", str(len(said)))
                self.end_headers()
                self.wfile.write(said)

            def trickle(self, answer: bytes, every_s: float) -> None:
                for n in range(len(answer)):
                    if receiver.closing.is_set():  # the test is over: the server waits for its threads
                        return
                    try:
                        self.wfile.write(answer[n : n + 1])
                        self.wfile.flush()
                    except OSError:  # the sender hung up
                        return
                    time.sleep(every_s)
                receiver.trickled.set()

            def log_message(self, *args: object) -> None:
                pass

        self.trickled = threading.Event()  # a trickled answer was sent to its end
        self.closing = threading.Event()
        self.server = ThreadingHTTPServer((address, 0), Handler)
        self.url = f"http://{address}:{self.server.server_port}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "Receiver":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.closing.set()
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


TELEGRAM_TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"  # the Bot API documentation's example token


# the Bot API's answers (quoted in test_push.py): a message taken, and flood control asking for a second's wait
TELEGRAM_TOOK = b'{"ok":true,"result":{"message_id":42,"chat":{"id":-1001234567890}}}'


class ManualClock:
    """The sender's monotonic clock, moved by a receiver as it answers: how long an answer took, without waiting."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now
