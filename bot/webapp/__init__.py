"""The Mini App: a card table inside Telegram. `server` serves the page, the API and
the live stream; `auth` checks Telegram's initData; `snapshot` is what one viewer may see;
`hub` sends each open page the table as it changes."""
