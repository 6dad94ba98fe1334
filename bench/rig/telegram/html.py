"""Telegram's HTML parse mode (a port of tdlib's parse_html, td/telegram/MessageEntity.cpp)."""

from __future__ import annotations

import re

from bench.rig.telegram.model import EntityParseError, JSONDict

# --------------------------------------------------------------------------------------------
# Telegram's HTML parse mode (a port of tdlib's parse_html, td/telegram/MessageEntity.cpp)
# --------------------------------------------------------------------------------------------

_HTML_TAGS = frozenset(
    {
        "a",
        "b",
        "strong",
        "i",
        "em",
        "s",
        "strike",
        "del",
        "u",
        "ins",
        "tg-spoiler",
        "tg-emoji",
        "span",
        "pre",
        "code",
        "blockquote",
    }
)
_SPECIAL = re.compile(rb"[&<]")
_SPACES = frozenset(b" \t\r\n\v\f\x00")  # tdlib's is_space treats the terminating NUL as space
_UNICODE_ERROR = (
    "Text contains invalid Unicode characters after decoding HTML entities, "
    "check for unmatched surrogate code units"
)


# `&` and what may follow it: `#x` and hex digits, `#` and decimal digits, or a name (the
# digits or letters tdlib's loops take; a match at an `&` always succeeds)
_ENTITY = re.compile(rb"&(?:#x([0-9a-fA-F]*)|#([0-9]*)|([A-Za-z]*))")
_NAMED_ENTITIES = {b"lt": 0x3C, b"gt": 0x3E, b"amp": 0x26, b"quot": 0x22}


def _decode_html_entity(data: bytes, pos: int) -> tuple[int, int]:
    """(code point, position after the entity), or (0, pos) if ``&`` starts no entity."""
    found = _ENTITY.match(data, pos)
    assert found is not None
    end = found.end()
    hexadecimal, decimal, name = found.groups()
    if name is not None:
        code = _NAMED_ENTITIES.get(name, 0)
        if code == 0:
            return 0, pos
    else:
        digits = hexadecimal if hexadecimal is not None else decimal
        code = int(digits, 16 if hexadecimal is not None else 10) if digits else 0
        if code == 0 or code >= 0x10FFFF or end - pos >= 10:
            return 0, pos
    if data[end : end + 1] == b";":
        end += 1
    return code, end


def _append_code_point(out: bytearray, code: int) -> None:
    if 0xD800 <= code <= 0xDFFF:
        raise EntityParseError(_UNICODE_ERROR)
    out += chr(code).encode("utf-8")


def parse_html(text: str, *, strict_ampersand: bool = True) -> tuple[str, list[JSONDict]]:
    """Parse Telegram HTML into (plain text, entities) or raise :class:`EntityParseError`.

    Same grammar and error messages as Telegram (tdlib): allowed tags b, strong, i, em, u,
    ins, s, strike, del, span class="tg-spoiler", tg-spoiler, a href, code, pre, blockquote
    [expandable], tg-emoji emoji-id; entities &lt; &gt; &amp; &quot; and numeric ones.
    A bare ``<`` fails as Telegram does ("Unsupported start tag ..." or "Unclosed start
    tag ..."). Telegram keeps a bare ``&`` that starts no entity as text; with
    ``strict_ampersand`` (the default) this fake refuses it instead, since the API
    documentation requires escaping it and ``&lt`` in user-supplied text would otherwise be
    silently decoded. Entity offsets/lengths are in UTF-16 code units.
    """
    data = text.encode("utf-8")
    n = len(data)

    def at(i: int) -> int:
        return data[i] if i < n else 0

    def is_space(c: int) -> bool:
        return c in _SPACES

    def s(b: bytes) -> str:
        return b.decode("utf-8", "replace")

    out = bytearray()
    utf16 = 0
    entities: list[JSONDict] = []
    # (tag name, argument, utf16 offset of the entity start, byte offset in out)
    stack: list[tuple[str, str, int, int]] = []
    i = 0
    while i < n:
        c = data[i]
        if c == ord("&"):
            code, end = _decode_html_entity(data, i)
            if code:
                _append_code_point(out, code)
                utf16 += 2 if code > 0xFFFF else 1
                i = end
                continue
            if strict_ampersand:
                raise EntityParseError(
                    f'Unescaped "&" at byte offset {i} (this fake refuses it; escape it as &amp;)'
                )
        if c != ord("<"):
            # plain text up to the next "&" or "<", at once (a byte at a time was most of
            # the stand-in's time): a Python str's UTF-8 splits there at a character's end
            plain = _SPECIAL.search(data, i + 1)
            end = n if plain is None else plain.start()
            run = data[i:end]
            out += run
            utf16 += len(run.decode("utf-8").encode("utf-16-le")) // 2
            i = end
            continue

        begin = i
        i += 1
        if at(i) != ord("/"):
            while not is_space(at(i)) and at(i) != ord(">"):
                i += 1
            if at(i) == 0:
                raise EntityParseError(f"Unclosed start tag at byte offset {begin}")
            tag = s(data[begin + 1 : i]).lower()
            if tag not in _HTML_TAGS:
                raise EntityParseError(f'Unsupported start tag "{tag}" at byte offset {begin}')
            argument = ""
            while at(i) != ord(">"):
                while at(i) != 0 and is_space(at(i)):
                    i += 1
                if at(i) == ord(">"):
                    break
                attr_begin = i
                while not is_space(at(i)) and at(i) not in b"=>/\"'":
                    i += 1
                attr_name = s(data[attr_begin:i])
                if not attr_name:
                    raise EntityParseError(
                        f'Empty attribute name in the tag "{tag}" at byte offset {begin}'
                    )
                while at(i) != 0 and is_space(at(i)):
                    i += 1
                if at(i) != ord("="):
                    if at(i) == 0:
                        raise EntityParseError(f'Unclosed start tag "{tag}" at byte offset {begin}')
                    if tag == "blockquote" and attr_name == "expandable":
                        argument = "1"
                    continue
                i += 1
                while at(i) != 0 and is_space(at(i)):
                    i += 1
                if at(i) == 0:
                    raise EntityParseError(f'Unclosed start tag "{tag}" at byte offset {begin}')
                if at(i) not in b"\"'":
                    token_begin = i
                    while (chr(at(i)).isascii() and chr(at(i)).isalnum()) or at(i) in b".-":
                        i += 1
                    value = s(data[token_begin:i]).lower()
                    if not is_space(at(i)) and at(i) != ord(">"):
                        raise EntityParseError(
                            f"Unexpected end of name token at byte offset {token_begin}"
                        )
                else:
                    quote = at(i)
                    i += 1
                    buf = bytearray()
                    while at(i) != quote and at(i) != 0:
                        if at(i) == ord("&"):
                            code, end = _decode_html_entity(data, i)
                            if code:
                                _append_code_point(buf, code)
                                i = end
                                continue
                        buf.append(at(i))
                        i += 1
                    if at(i) == quote:
                        i += 1
                    value = s(bytes(buf))
                if at(i) == 0:
                    raise EntityParseError(f"Unclosed start tag at byte offset {begin}")
                if tag == "a" and attr_name == "href":
                    argument = value
                elif tag == "code" and attr_name == "class" and value.startswith("language-"):
                    argument = value[len("language-") :]
                elif tag == "span" and attr_name == "class" and value.startswith("tg-"):
                    argument = value[3:]
                elif (tag == "tg-emoji" and attr_name == "emoji-id") or (
                    tag == "blockquote" and attr_name == "expandable"
                ):
                    argument = value if tag == "tg-emoji" else "1"
            if tag == "span" and argument != "spoiler":
                raise EntityParseError(
                    f'Tag "span" must have class "tg-spoiler" at byte offset {begin}'
                )
            stack.append((tag, argument, utf16, len(out)))
            i += 1  # past ">"
            continue

        # an end tag
        if not stack:
            raise EntityParseError(f"Unexpected end tag at byte offset {begin}")
        while not is_space(at(i)) and at(i) != ord(">"):
            i += 1
        end_tag = s(data[begin + 2 : i]).lower()
        while is_space(at(i)) and at(i) != 0:
            i += 1
        if at(i) != ord(">"):
            raise EntityParseError(f"Unclosed end tag at byte offset {begin}")
        tag, argument, offset, out_pos = stack[-1]
        if end_tag and end_tag != tag:
            raise EntityParseError(
                f'Unmatched end tag at byte offset {begin}, expected "</{tag}>", '
                f'found "</{end_tag}>"'
            )
        if utf16 > offset:
            _close_entity(entities, tag, argument, offset, utf16 - offset, out, out_pos)
        stack.pop()
        i += 1  # past ">"

    if stack:
        raise EntityParseError(f'Can\'t find end tag corresponding to start tag "{stack[-1][0]}"')
    for entity in entities:
        if entity["type"] == "code":
            entity.pop("language", None)
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return out.decode("utf-8"), entities


def _close_entity(
    entities: list[JSONDict],
    tag: str,
    argument: str,
    offset: int,
    length: int,
    out: bytearray,
    out_pos: int,
) -> None:
    simple = {
        "i": "italic",
        "em": "italic",
        "b": "bold",
        "strong": "bold",
        "s": "strikethrough",
        "strike": "strikethrough",
        "del": "strikethrough",
        "u": "underline",
        "ins": "underline",
        "tg-spoiler": "spoiler",
        "span": "spoiler",
    }
    last = entities[-1] if entities else None
    same_span = last is not None and last["offset"] == offset and last["length"] == length
    if tag in simple:
        entities.append({"type": simple[tag], "offset": offset, "length": length})
    elif tag == "tg-emoji":
        if not argument.isdigit() or int(argument) == 0:
            raise EntityParseError("Invalid custom emoji identifier specified")
        entities.append(
            {
                "type": "custom_emoji",
                "offset": offset,
                "length": length,
                "custom_emoji_id": argument,
            }
        )
    elif tag == "a":
        url = argument or out[out_pos:].decode("utf-8", "replace")
        if url:
            entities.append({"type": "text_link", "offset": offset, "length": length, "url": url})
    elif tag == "pre":
        if last is not None and same_span and last["type"] == "code" and last.get("language"):
            last["type"] = "pre"
        else:
            entities.append({"type": "pre", "offset": offset, "length": length})
    elif tag == "code":
        if last is not None and same_span and last["type"] == "pre" and argument:
            last["language"] = argument
        else:
            entity: JSONDict = {"type": "code", "offset": offset, "length": length}
            if argument:
                entity["language"] = argument
            entities.append(entity)
    elif tag == "blockquote":
        kind = "expandable_blockquote" if argument else "blockquote"
        entities.append({"type": kind, "offset": offset, "length": length})


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _trim(text: str, entities: list[JSONDict]) -> tuple[str, list[JSONDict]]:
    """Telegram strips leading and trailing whitespace; entities are shifted and clipped."""
    stripped = text.strip()
    if stripped == text:
        return text, entities
    lead = _utf16_len(text[: len(text) - len(text.lstrip())])
    total = _utf16_len(stripped)
    kept: list[JSONDict] = []
    for entity in entities:
        start = max(0, entity["offset"] - lead)
        end = min(total, entity["offset"] + entity["length"] - lead)
        if end > start:
            kept.append({**entity, "offset": start, "length": end - start})
    return stripped, kept


def bot_command_entities(text: str) -> list[JSONDict]:
    """bot_command entities as Telegram detects them (tdlib's match_bot_commands)."""

    def is_word(ch: str) -> bool:
        return ch.isalnum() or ch == "_"

    def cmd_end(start: int) -> int:
        """Where the run of command characters (ASCII letters, digits, _) from `start` ends."""
        end = start
        while end < n and text[end].isascii() and (text[end].isalnum() or text[end] == "_"):
            end += 1
        return end

    found: list[JSONDict] = []
    n = len(text)
    i = 0
    while (j := text.find("/", i)) != -1:
        i = j + 1
        if j > 0 and (is_word(text[j - 1]) or text[j - 1] in "/<>"):
            continue
        k = cmd_end(j + 1)
        i = max(i, k)
        if not 1 <= k - j - 1 <= 64:
            continue
        if k < n and text[k] == "@":
            m = cmd_end(k + 1)
            i = max(i, m)
            if not 3 <= m - k - 1 <= 32:
                continue
            k = m
        if k < n and (is_word(text[k]) or text[k] in "/<>"):
            continue
        found.append(
            {"type": "bot_command", "offset": _utf16_len(text[:j]), "length": _utf16_len(text[j:k])}
        )
    return found
