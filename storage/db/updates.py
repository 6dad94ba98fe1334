"""Webhook updates applied once: a process claims an update before applying it, renews the
claim while it works and marks it done, so a copy Telegram delivers again is skipped. A move
or a lobby change marks its update done in its own transaction (`UpdateStore.applied`).
"""

from __future__ import annotations

from storage.backend import Backend, Conn
from storage.models import UpdateClaim


class UpdateStore:
    """Webhook updates: claimed, renewed, done."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    @staticmethod
    async def applied(conn: Conn, update_id: int) -> None:
        """Update `update_id` is applied, in the caller's transaction (a move's, a lobby
        change's)."""
        await conn.execute(
            "UPDATE webhook_updates SET state = 'done' WHERE update_id = ?", (update_id,)
        )

    async def claim_update(self, update_id: int, now: float, lease: float) -> UpdateClaim:
        """Webhook mode: may this process apply update `update_id` (Unix time `now`)?
        NEW: nobody did, it is claimed now; DONE: already applied; BUSY: another process is
        applying it (claimed less than `lease` seconds ago). A claim older than the lease
        (its process died before finishing) is taken over: NEW."""
        async with self.backend.write() as conn:
            row = await conn.one(
                "SELECT state, claimed_at FROM webhook_updates WHERE update_id = ?",
                (update_id,),
            )
            if row is not None and row["state"] == "done":
                return UpdateClaim.DONE
            if row is not None and float(row["claimed_at"]) > now - lease:
                return UpdateClaim.BUSY
            await conn.execute(
                "INSERT INTO webhook_updates (update_id, state, claimed_at)"
                " VALUES (?, 'claimed', ?)"
                " ON CONFLICT (update_id) DO UPDATE SET claimed_at = excluded.claimed_at",
                (update_id, now),
            )
            return UpdateClaim.NEW

    async def renew_update(self, update_id: int, now: float) -> None:
        """The process applying update `update_id` is alive: its claim starts again at `now`
        (a short lease, renewed while the update is handled, lets another process take over
        soon after this one died)."""
        async with self.backend.write() as conn:
            await conn.execute(
                "UPDATE webhook_updates SET claimed_at = ?"
                " WHERE update_id = ? AND state = 'claimed'",
                (now, update_id),
            )

    async def finish_update(self, update_id: int, now: float, keep: float = 86_400.0) -> None:
        """Update `update_id` is applied; updates older than `keep` seconds are forgotten
        (Telegram redelivers for 24 hours at most)."""
        async with self.backend.write() as conn:
            await conn.execute(
                "UPDATE webhook_updates SET state = 'done' WHERE update_id = ?", (update_id,)
            )
            await conn.execute("DELETE FROM webhook_updates WHERE claimed_at < ?", (now - keep,))
