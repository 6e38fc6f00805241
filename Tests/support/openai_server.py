"""An OpenAI-compatible server for the test world: /v1/models, /v1/chat/completions (streaming included)
and /v1/completions, answering by rules the test sets and recording every prompt.

    llm = ScriptedLLM(default="I don't know.")
    llm.when("search queries", '["a", "b"]')            # prompt contains text -> reply
    llm.when(lambda prompt: "Selected" in prompt, fn)    # predicate -> reply function(prompt) -> str
    llm.install(world)                                   # base URL: world.url("/v1")
"""
from __future__ import annotations

import json
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
