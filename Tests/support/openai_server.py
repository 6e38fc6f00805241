"""An OpenAI-compatible server for the test world: /v1/models, /v1/chat/completions (streaming included)
and /v1/completions, answering by rules the test sets and recording every prompt.

    llm = ScriptedLLM(default="I don't know.")
    llm.when("search queries", '["a", "b"]')            # prompt contains text -> reply
    llm.when(lambda prompt: "Selected" in prompt, fn)    # predicate -> reply function(prompt) -> str
    llm.install(world)                                   # base URL: world.url("/v1")
    ScriptedLLM(echo_key=500)                            # every answer an error quoting the key it was sent
    dead = DeadLLM("503").start()                        # a server that is down: "503", "hang" or "refused"
"""
from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from Tests.support.testworld import Request, Response, TestWorld

Reply = str | Callable[[str], str]


@dataclass
class ScriptedLLM:
    default: Reply = "OK"
    models: list[str] = field(default_factory=lambda: ["test-model"])
    api_key: str | None = None  # when set, other keys get 401
    context_tokens: int = 32768  # longer prompts get the server's context-length 400
    delay: float = 0.0  # seconds per call (latency injection)
    echo_key: int | None = None  # answer every request with this status and an error quoting the key sent
    rules: list[tuple[Callable[[str], bool], Reply]] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)
    bodies: list[dict] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def calls(self) -> int:
        with self._lock:
            return len(self.prompts)

    def when(self, match: str | Callable[[str], bool], reply: Reply) -> "ScriptedLLM":
        pred = (lambda p, s=match: s in p) if isinstance(match, str) else match
        self.rules.append((pred, reply))
        return self

    def answer_for(self, prompt: str) -> str:
        for pred, reply in self.rules:
            if pred(prompt):
                return reply(prompt) if callable(reply) else reply
        return self.default(prompt) if callable(self.default) else self.default

    def install(self, world: TestWorld, prefix: str = "/v1") -> "ScriptedLLM":
        world.route("GET", f"{prefix}/models", self._models)
        world.route("POST", f"{prefix}/chat/completions", self._chat)
        world.route("POST", f"{prefix}/completions", self._completions)
        return self

    # ------------------------------------------------------------ handlers
    def _models(self, req: Request) -> Response:
        if (err := self._auth(req)) is not None:
            return err
        return Response.json({"object": "list", "data": [
            {"id": m, "object": "model", "created": 0, "owned_by": "test-world"} for m in self.models]})

    def _auth(self, req: Request) -> Response | None:
        if self.echo_key is not None:  # some servers quote the credential back in their error text
            return _error(self.echo_key, f"upstream refused the request made with "
                                         f"{req.header('authorization')!r}: backend unavailable", "server_error")
        if self.api_key and req.header("authorization") != f"Bearer {self.api_key}":
            return _error(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
        return None

    def _prepare(self, req: Request, prompt_of: Callable[[dict], str]):
        if (err := self._auth(req)) is not None:
            return err, None, None
        try:
            body = req.json()
        except (ValueError, UnicodeDecodeError):
            return _error(400, "We could not parse the JSON body of your request.", "invalid_request_error"), None, None
        if body.get("model") not in self.models:
            return _error(404, f"The model `{body.get('model')}` does not exist.", "invalid_request_error",
                          "model_not_found"), None, None
        prompt = prompt_of(body)
        if len(prompt) / 4 > self.context_tokens:
            return _error(400, f"This model's maximum context length is {self.context_tokens} tokens.",
                          "invalid_request_error", "context_length_exceeded"), None, None
        with self._lock:
            self.prompts.append(prompt)
            self.bodies.append(body)
        if self.delay:
            time.sleep(self.delay)
        return None, body, prompt

    def _chat(self, req: Request) -> Response:
        err, body, prompt = self._prepare(
            req, lambda b: "\n\n".join(str(m.get("content", "")) for m in b.get("messages", [])))
        if err is not None:
            return err
        text = self.answer_for(prompt)
        usage = {"prompt_tokens": len(prompt) // 4, "completion_tokens": len(text) // 4,
                 "total_tokens": (len(prompt) + len(text)) // 4}
        if body.get("stream"):
            return Response(200, _sse_chunks(body["model"], text),
                            {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        return Response.json({
            "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()), "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": usage})

    def _completions(self, req: Request) -> Response:
        err, body, prompt = self._prepare(req, lambda b: str(b.get("prompt", "")))
        if err is not None:
            return err
        text = self.answer_for(prompt)
        return Response.json({
            "id": "cmpl-test", "object": "text_completion", "created": int(time.time()), "model": body["model"],
            "choices": [{"index": 0, "text": text, "finish_reason": "stop", "logprobs": None}],
            "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": len(text) // 4,
                      "total_tokens": (len(prompt) + len(text)) // 4}})


def _error(status: int, message: str, etype: str, code: str | None = None) -> Response:
    return Response.json({"error": {"message": message, "type": etype, "param": None, "code": code}}, status)


def _sse_chunks(model: str, text: str):
    """The answer as server-sent events, a few characters per chunk, the way OpenAI streams."""
    def event(delta: dict, finish: str | None = None) -> bytes:
        chunk = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": int(time.time()),
                 "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(chunk)}\n\n".encode("utf-8")

    yield event({"role": "assistant", "content": ""})
    for i in range(0, len(text), 7):
        yield event({"content": text[i:i + 7]})
    yield event({}, "stop")
    yield b"data: [DONE]\n\n"


class DeadLLM:
    """An OpenAI-compatible address whose server is down, one of three ways, each on a server of its own so
    that every request it counts is one the client sent:

      "503"      every request is answered 503 Service Unavailable (a proxy in front of a stopped server)
      "hang"     the connection is accepted and the request read, but no answer ever comes
      "refused"  nothing listens on the port (the connection is refused; `requests()` is None)
    """

    def __init__(self, mode: str):
        if mode not in ("503", "hang", "refused"):
            raise ValueError(f"unknown mode {mode!r}")
        self.mode = mode
        self.world: TestWorld | None = None
        self.base_url = ""

    def start(self) -> "DeadLLM":
        if self.mode == "refused":
            with socket.socket() as sock:  # a port just freed: nothing listens on it
                sock.bind(("127.0.0.1", 0))
                self.base_url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
            return self
        self.world = TestWorld().start()
        self.base_url = self.world.url("/v1")
        if self.mode == "503":
            self.world.fault("/v1", status=503, headers={"Content-Type": "application/json"},
                             body=json.dumps({"error": {"message": "Service Unavailable", "type": "server_error",
                                                        "param": None, "code": None}}).encode())
        else:
            self.world.fault("/v1", hang=True)
        return self

    def requests(self) -> int | None:
        """How many requests reached the server (None for "refused": none can)."""
        return len(self.world.requests_to("/v1")) if self.world else None

    def stop(self) -> None:
        if self.world:
            self.world.stop()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
