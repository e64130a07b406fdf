"""The ``openai-compatible/`` backend: any server speaking the OpenAI HTTP API (vLLM, llama.cpp,
``transformers serve``, hosted APIs).

One request per prompt, at most ``max_concurrency`` in flight (threads of the shared executor),
each retried with exponential backoff on connection errors, timeouts, 429 and 5xx. An item that
still fails becomes ``Completion(error=...)``; the other items are unaffected. The API key goes
only into the ``Authorization`` header: it is not part of ``cache_identity`` and never appears in
error messages.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

import httpx
import tenacity

from ..errors import ModelSpecError
from ..execution import LocalExecutor
from ._base import Completion, GenerationParams
from ._stop import cut_at_stop

ENDPOINTS = ("completions", "chat")
_RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


class _Retryable(Exception):
    """An HTTP answer worth asking again (rate limit, server error)."""


class OpenAICompatibleModel:
    """``openai-compatible/<model>`` against ``base_url`` (e.g. ``http://127.0.0.1:8000/v1``).

    ``endpoint="completions"`` sends the prompt as raw text (``/completions``); ``"chat"`` sends it
    as one user message (``/chat/completions``). ``base_url`` and ``api_key`` default to
    ``$OPENAI_BASE_URL`` and ``$OPENAI_API_KEY``.
    """

    def __init__(self, spec: str, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 endpoint: str = "completions", max_concurrency: int = 8, max_retries: int = 4,
                 timeout: float = 120.0, backoff: float = 1.0) -> None:
        base = resolve_base_url(spec, base_url)
        if endpoint not in ENDPOINTS:
            raise ModelSpecError(f"{spec}: endpoint must be one of {', '.join(ENDPOINTS)}, got {endpoint!r}")
        if max_concurrency < 1:
            raise ModelSpecError(f"{spec}: max_concurrency must be >= 1, got {max_concurrency}")
        self.spec = spec
        self.model = model
        self.base_url = base
        self._shown_url = _without_userinfo(base)   # what errors, reprs and the cache see
        self.endpoint = endpoint
        self.max_concurrency = max_concurrency
        self.batch_size = max_concurrency * 4  # cache chunk: a few rounds of concurrent requests
        self.max_retries = max_retries
        self.backoff = backoff
        self.cache_identity = self.identity_for(spec, base_url=base, endpoint=endpoint)
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        parts = urlsplit(base)
        basic = (base64.b64encode(f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
                                  .encode()).decode() if parts.password else None)
        self._secrets = tuple(s for s in (key, parts.password, basic) if s)
        self._client = httpx.Client(headers=headers, timeout=timeout,
                                    limits=httpx.Limits(max_connections=max_concurrency))
        self._executor = LocalExecutor(workers=max_concurrency)

    @staticmethod
    def identity_for(spec: str, *, base_url: str | None = None, endpoint: str = "completions") -> str:
        """The cache identity (spec, server, endpoint — never the key), computable without a server."""
        return f"{spec}?base_url={_without_userinfo(resolve_base_url(spec, base_url))}&endpoint={endpoint}"

    def __repr__(self) -> str:  # no key in reprs either
        return f"OpenAICompatibleModel({self.spec!r}, base_url={self._shown_url!r}, endpoint={self.endpoint!r})"

    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[Completion]:
        """One request per prompt, ``max_concurrency`` at a time; failures become errored items."""
        results = self._executor.map(lambda p: self._one(p, params), list(prompts),
                                     desc=f"generate {self.spec}")
        return [r.value if r.ok and r.value is not None else Completion(text="", error=r.error)
                for r in results]

    def _body(self, prompt: str, params: GenerationParams) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "max_tokens": params.max_tokens,
                                "temperature": params.temperature, "top_p": params.top_p}
        if params.seed is not None:
            body["seed"] = params.seed
        if params.stop:
            body["stop"] = list(params.stop)[:4]  # the API's limit; all are applied below anyway
        if self.endpoint == "chat":
            body["messages"] = [{"role": "user", "content": prompt}]
        else:
            body["prompt"] = prompt
        return body

    def _one(self, prompt: str, params: GenerationParams) -> Completion:
        """One request; an error text never carries the key (a server may echo the request's
        headers in its error body; a key may sit in the base URL): it is stored in the cache."""
        out = self._request(prompt, params)
        if out.error is None:
            return out
        error = out.error.replace(self.base_url, self._shown_url)
        for secret in self._secrets:
            error = error.replace(secret, "***")
        return Completion(text="", error=error)

    def _request(self, prompt: str, params: GenerationParams) -> Completion:
        path = "/chat/completions" if self.endpoint == "chat" else "/completions"
        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.max_retries + 1),
            wait=tenacity.wait_exponential(multiplier=self.backoff, max=30 * self.backoff),
            retry=tenacity.retry_if_exception_type((httpx.TransportError, _Retryable)),
            reraise=True)
        try:
            for attempt in retrying:
                with attempt:
                    response = self._client.post(self.base_url + path, json=self._body(prompt, params))
                    if response.status_code in _RETRY_STATUS:
                        raise _Retryable(f"HTTP {response.status_code} from {self.base_url}{path}: "
                                         f"{response.text[:300]}")
        except httpx.TransportError as exc:
            return Completion(text="", error=f"{type(exc).__name__} talking to {self.base_url}{path}: {exc}")
        except _Retryable as exc:
            return Completion(text="", error=str(exc))
        if response.status_code != 200:
            return Completion(text="", error=f"HTTP {response.status_code} from {self.base_url}{path}: "
                                             f"{response.text[:300]}")
        return _parse(response, self.endpoint, params)

    def close(self) -> None:
        self._client.close()


def _without_userinfo(url: str) -> str:
    """``url`` without ``user:password@`` (a key placed in the URL)."""
    parts = urlsplit(url)
    if not (parts.username or parts.password):
        return url
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def resolve_base_url(spec: str, base_url: str | None) -> str:
    base = base_url or os.environ.get("OPENAI_BASE_URL")
    if not base:
        raise ModelSpecError(f"{spec}: no server URL — pass base_url / --base-url "
                             f"(e.g. http://127.0.0.1:8000/v1) or set OPENAI_BASE_URL")
    return base.rstrip("/")


def _parse(response: httpx.Response, endpoint: str, params: GenerationParams) -> Completion:
    try:
        choice = response.json()["choices"][0]
        text = choice["message"]["content"] if endpoint == "chat" else choice["text"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        return Completion(text="", error=f"unexpected answer from server ({exc!r}): {response.text[:300]}")
    text = text or ""
    finish = choice.get("finish_reason")
    text, stopped = cut_at_stop(text, params.stop)  # some servers keep the stop string; the API
    if stopped:                                     # says it is left out
        finish = "stop"
    return Completion(text=text, finish_reason=finish)
