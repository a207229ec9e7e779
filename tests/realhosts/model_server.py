"""A scripted model on 127.0.0.1 that the real agent hosts talk to instead of their vendor's API.

A scenario is a list of steps: each is one tool call the "model" makes (or a text answer). The next
step is chosen by how many tool results the host has sent back so far, so a host's side requests
(titles, token counts, next-speaker checks) and retries never advance the script. Once the script is
spent the model answers with a final text. Every request is logged so that a test can assert what the
model was told: tool results, refusal reasons, injected context.

Four wire protocols, all streamed as server-sent events when asked to:
- Anthropic Messages (`POST /v1/messages`): Claude Code.
- OpenAI Responses (`POST .../responses`): Codex with a custom provider.
- Gemini (`POST .../models/M:streamGenerateContent` / `:generateContent`): Gemini CLI.
- OpenAI chat completions (`POST .../chat/completions`): Copilot CLI with its own provider, Qwen Code.
Stdlib only.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FINAL_TEXT = "All done."


@dataclass
class Step:
    """One move of the model: a function call (`args`), a free-form custom tool call (`text_input`,
    Codex's apply_patch), or plain text."""

    name: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    text_input: str | None = None
    text: str | None = None
    # Something that happens in the world just before the model makes this move (a person's edit).
    before: Callable[[], None] | None = None
    # A move the model decides from what it has been told (the request's text): it runs what it read.
    decide: Callable[[str], Step] | None = None


def call(name: str, **args: Any) -> Step:
    return Step(name=name, args=args)


def custom(name: str, text_input: str) -> Step:
    return Step(name=name, text_input=text_input)


@dataclass
class Request:
    """One logged request: its path and parsed body."""

    path: str
    body: Any

    def text(self) -> str:
        return json.dumps(self.body, ensure_ascii=False)


class ModelServer:
    """The scripted model. Use as a context manager; `url` is its base address."""

    def __init__(self, steps: list[Step]) -> None:
        self.steps = steps
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> ModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def log(self, path: str, body: Any) -> None:
        with self._lock:
            self.requests.append(Request(path, body))

    def step_for(self, results_seen: int, body: Any) -> Step:
        if results_seen >= len(self.steps):
            return Step(text=FINAL_TEXT)
        step = self.steps[results_seen]
        with self._lock:
            before, step.before = step.before, None
        if before is not None:  # once, even if the host asks again
            before()
        return step.decide(json.dumps(body, ensure_ascii=False)) if step.decide else step



# ---- counting tool results, per protocol -------------------------------------------------------

def _anthropic_results(body: dict[str, Any]) -> int:
    return sum(1 for m in body.get("messages", []) if isinstance(m.get("content"), list)
               for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result")


def _responses_results(body: dict[str, Any]) -> int:
    items = body.get("input", [])
    return sum(1 for i in items if isinstance(i, dict) and str(i.get("type", "")).endswith("call_output"))


def _gemini_body(body: dict[str, Any]) -> dict[str, Any]:
    inner = body.get("request")
    return inner if isinstance(inner, dict) else body


def _gemini_results(body: dict[str, Any]) -> int:
    return sum(1 for c in _gemini_body(body).get("contents", []) for p in c.get("parts", [])
               if isinstance(p, dict) and "functionResponse" in p)


def _chat_results(body: dict[str, Any]) -> int:
    return sum(1 for m in body.get("messages", []) if m.get("role") == "tool")


# ---- answers, per protocol ----------------------------------------------------------------------

def _sse(event: str | None, data: Any) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def _anthropic(step: Step, n: int, model: str, stream: bool) -> tuple[str, Iterator[bytes] | bytes]:
    if step.text is not None:
        block: dict[str, Any] = {"type": "text", "text": step.text}
        stop = "end_turn"
    else:
        block = {"type": "tool_use", "id": f"toolu_{n:04d}", "name": step.name, "input": step.args}
        stop = "tool_use"
    usage = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    message = {"id": f"msg_{n:04d}_{time.monotonic_ns()}", "type": "message", "role": "assistant", "model": model,
               "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage}
    if not stream:
        return "application/json", json.dumps(message).encode()

    def events() -> Iterator[bytes]:
        yield _sse("message_start", {"type": "message_start", "message": {**message, "content": [],
                                                                           "stop_reason": None}})
        if block["type"] == "text":
            yield _sse("content_block_start", {"type": "content_block_start", "index": 0,
                                               "content_block": {"type": "text", "text": ""}})
            delta: dict[str, Any] = {"type": "text_delta", "text": block["text"]}
        else:
            yield _sse("content_block_start", {"type": "content_block_start", "index": 0,
                                               "content_block": {**block, "input": {}}})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield _sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
        yield _sse("content_block_stop", {"type": "content_block_stop", "index": 0})
        yield _sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": 5}})
        yield _sse("message_stop", {"type": "message_stop"})

    return "text/event-stream", events()


def _responses(step: Step, n: int, model: str) -> tuple[str, Iterator[bytes]]:
    rid = f"resp_{n:04d}_{time.monotonic_ns()}"
    if step.text is not None:
        item: dict[str, Any] = {"type": "message", "role": "assistant", "id": f"msg_{n}",
                                "content": [{"type": "output_text", "text": step.text, "annotations": []}]}
    elif step.text_input is not None:
        item = {"type": "custom_tool_call", "id": f"ctc_{n}", "call_id": f"call_{n:04d}", "name": step.name,
                "input": step.text_input, "status": "completed"}
    else:
        item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n:04d}", "name": step.name,
                "arguments": json.dumps(step.args), "status": "completed"}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
    response = {"id": rid, "object": "response", "model": model, "status": "in_progress", "output": []}

    def events() -> Iterator[bytes]:
        yield _sse("response.created", {"type": "response.created", "response": response})
        yield _sse("response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                                  "item": item})
        yield _sse("response.output_item.done", {"type": "response.output_item.done", "output_index": 0,
                                                 "item": item})
        yield _sse("response.completed", {"type": "response.completed",
                                          "response": {**response, "status": "completed", "output": [item],
                                                       "usage": usage}})

    return "text/event-stream", events()


def _gemini(step: Step, model: str, stream: bool) -> tuple[str, Iterator[bytes] | bytes]:
    part: dict[str, Any] = ({"text": step.text} if step.text is not None
                            else {"functionCall": {"name": step.name, "args": step.args}})
    chunk = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
             "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
             "modelVersion": model}
    if not stream:
        return "application/json", json.dumps(chunk).encode()
    return "text/event-stream", iter([f"data: {json.dumps(chunk)}\r\n\r\n".encode()])


def _chat(step: Step, n: int, model: str, stream: bool) -> tuple[str, Iterator[bytes] | bytes]:
    cid = f"chatcmpl-{n}-{time.monotonic_ns()}"
    base = {"id": cid, "created": int(time.time()), "model": model}
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    if step.text is not None:
        message: dict[str, Any] = {"role": "assistant", "content": step.text}
        finish = "stop"
    else:
        message = {"role": "assistant", "content": None,
                   "tool_calls": [{"id": f"call_{n:04d}", "type": "function",
                                   "function": {"name": step.name, "arguments": json.dumps(step.args)}}]}
        finish = "tool_calls"
    if not stream:
        return "application/json", json.dumps({**base, "object": "chat.completion", "usage": usage, "choices": [
            {"index": 0, "message": message, "finish_reason": finish}]}).encode()

    def events() -> Iterator[bytes]:
        chunk = {**base, "object": "chat.completion.chunk"}
        delta = dict(message)
        if "tool_calls" in delta:
            delta["tool_calls"] = [{"index": 0, **delta["tool_calls"][0]}]
        yield _sse(None, {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        yield _sse(None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        yield _sse(None, {**chunk, "choices": [], "usage": usage})
        yield b"data: [DONE]\n\n"

    return "text/event-stream", events()


def _handler_for(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet: the log is `requests`
            return

        def _send(self, status: int, ctype: str, payload: Iterator[bytes] | bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            if isinstance(payload, bytes):
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                return
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for piece in payload:
                self.wfile.write(piece)
                self.wfile.flush()
            self.close_connection = True

        def do_GET(self) -> None:  # no host asks for anything but completions; logged to show it if one does
            server.log(self.path, None)
            self._send(404, "application/json", b'{"error": {"message": "not served"}}')

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else {}
            except ValueError:
                body = {"unparsed": raw.decode("utf-8", "replace")}
            server.log(self.path, body)
            path = self.path.split("?", 1)[0]
            if not isinstance(body, dict):
                body = {}
            model = str(body.get("model") or "scripted")
            if path.endswith("/count_tokens") or path.endswith(":countTokens"):
                self._send(200, "application/json", json.dumps({"input_tokens": 10, "totalTokens": 10}).encode())
            elif path.endswith("/messages"):
                n = _anthropic_results(body)
                step = server.step_for(n, body) if body.get("tools") else Step(text=FINAL_TEXT)
                self._send(200, *_anthropic(step, n, model, bool(body.get("stream"))))
            elif path.endswith("/responses"):
                n = _responses_results(body)
                step = server.step_for(n, body) if body.get("tools") else Step(text=FINAL_TEXT)
                self._send(200, *_responses(step, n, model))
            elif ":streamGenerateContent" in path or ":generateContent" in path:
                inner = _gemini_body(body)
                n = _gemini_results(body)
                gmodel = path.rsplit("/", 1)[-1].split(":", 1)[0]
                if inner.get("tools"):
                    step = server.step_for(n, body)
                else:  # a side question (next speaker, loop check): answer as its JSON schema expects
                    step = Step(text=json.dumps({"reasoning": "done", "next_speaker": "user"}))
                self._send(200, *_gemini(step, gmodel, ":streamGenerateContent" in path))
            elif path.endswith("/chat/completions"):
                n = _chat_results(body)
                step = server.step_for(n, body) if body.get("tools") else Step(text=FINAL_TEXT)
                self._send(200, *_chat(step, n, model, bool(body.get("stream"))))
            else:
                self._send(404, "application/json", json.dumps({"error": {"message": f"no {path}"}}).encode())

    return Handler
