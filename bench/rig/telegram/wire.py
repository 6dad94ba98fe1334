"""Request decoding: the Bot API's parameters from a form, a JSON body or a multipart upload."""

from __future__ import annotations

import email.parser
import email.policy
import json
import re
from typing import Any
from urllib.parse import parse_qsl

from bench.rig.telegram.model import (
    _BOOL_FIELDS,
    _INT_FIELDS,
    _JSON_FIELDS,
    JSONDict,
    _bad,
    _Upload,
)

# --------------------------------------------------------------------------------------------
# Request decoding
# --------------------------------------------------------------------------------------------


def _coerce_field(name: str, value: Any) -> Any:
    """Type one parameter the way the Bot API reads it from a form field or JSON body."""
    if isinstance(value, str):
        if name in _JSON_FIELDS:
            try:
                return json.loads(value)
            except ValueError:
                if name == "reply_markup":
                    raise _bad("can't parse reply keyboard markup JSON object") from None
                raise _bad(f"can't parse {name} JSON object") from None
        if name in _INT_FIELDS:
            try:
                number = float(value) if name == "timeout" else int(value)
            except ValueError:
                raise _bad(f"invalid {name} specified") from None
            return number
        if name == "chat_id":
            return int(value) if re.fullmatch(r"-?\d+", value.strip()) else value.strip()
        if name in _BOOL_FIELDS:
            return value.strip().lower() in ("true", "1")
    return value


def _decode_params(content_type: str, body: bytes, query: str) -> JSONDict:
    raw: JSONDict = dict(parse_qsl(query, keep_blank_values=True))
    ctype = content_type.split(";", 1)[0].strip().lower()
    if body:
        if ctype == "application/json":
            try:
                loaded = json.loads(body)
            except ValueError:
                raise _bad("can't parse JSON object") from None
            if not isinstance(loaded, dict):
                raise _bad("can't parse JSON object")
            raw.update(loaded)
        elif ctype == "multipart/form-data":
            message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body
            )
            for part in message.iter_parts():
                name = part.get_param("name", header="content-disposition")
                if not isinstance(name, str):
                    continue
                payload = part.get_payload(decode=True)
                content = payload if isinstance(payload, bytes) else b""
                filename = part.get_filename()
                if filename is not None:
                    raw[name] = _Upload(filename, content)
                else:
                    raw[name] = content.decode("utf-8")
        else:
            raw.update(parse_qsl(body.decode("utf-8"), keep_blank_values=True))
    return {name: _coerce_field(name, value) for name, value in raw.items()}
