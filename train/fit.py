"""Fit a learned part's network on the data of `train/*_data.py` and write its weights.

    python -m train.fit value [--data .cache/value] [--epochs 8] [--seed 41]
        [--hidden 256,128] [--out bot/players/learned/weights/value.npz]

`value`: chiamata positions (`features.value_row`) -> the caller's side's card points at the
end (/120, squared error) and whether it reached its target (logistic). Hands of the last
chunk of each variant are held out; the held-out losses are printed with those of simple
baselines. Suits other than the briscola are permuted at random in every batch (they are
alike). PyTorch on the CPU, its threads as `--threads` (default 1).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bot.players.learned import features
from train.suits import moved, renamed, shuffle_suits


def load_chunks(data: Path) -> dict[str, dict[str, np.ndarray]]:
    """A part's chunks (`<group>-<i>.npz`) by split: the last chunk of each group (a
    variant, or recorded bench hands) is `valid` when the group has more than one."""
    by_variant: dict[str, list[Path]] = {}
    for f in sorted(data.glob("*-*.npz")):
        if f.name.endswith(".tmp.npz"):
            continue
        variant = f.stem.rpartition("-")[0]
        by_variant.setdefault(variant, []).append(f)
    splits: dict[str, list[dict[str, np.ndarray]]] = {"train": [], "valid": []}
    for files in by_variant.values():
        files.sort(key=lambda f: int(f.stem.rpartition("-")[2]))
        for i, f in enumerate(files):
            with np.load(f) as d:
                part = {k: d[k] for k in d.files}
            splits["valid" if i == len(files) - 1 and len(files) > 1 else "train"].append(part)
    return {
        name: {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        for name, parts in splits.items()
        if parts
    }


def mlp(sizes: list[int]) -> Any:
    import torch

    layers: list[Any] = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def export(model: Any, path: Path, meta: dict[str, Any]) -> None:
    """The weights as `nets.read` takes them: w<i> (inputs x outputs), b<i>, float16."""
    import torch

    arrays: dict[str, np.ndarray] = {}
    linear = [m for m in model if isinstance(m, torch.nn.Linear)]
    for i, lin in enumerate(linear):
        arrays[f"w{i}"] = lin.weight.detach().numpy().T.astype(np.float16)
        arrays[f"b{i}"] = lin.bias.detach().numpy().astype(np.float16)
    meta = {**meta, "version": features.VERSION}
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)  # type: ignore[arg-type]


def load_into(model: Any, path: Path) -> None:
    """`export`ed weights (`path`) into `model`, a perceptron of the same shape."""
    import torch

    linear = [m for m in model if isinstance(m, torch.nn.Linear)]
    with np.load(path) as data:
        for i, lin in enumerate(linear):
            w = torch.from_numpy(data[f"w{i}"].astype(np.float32).T.copy())
            b = torch.from_numpy(data[f"b{i}"].astype(np.float32))
            if w.shape != lin.weight.shape:
                raise SystemExit(f"{path}: layer {i} is {tuple(w.shape)}, not {lin.weight.shape}")
            with torch.no_grad():
                lin.weight.copy_(w)
                lin.bias.copy_(b)


def start_fit(
    args: argparse.Namespace, what: str, inputs: int, outputs: int
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], list[int], Any]:
    """A fit's start: torch seeded with `--seed`; the train and valid splits of `--data`
    (their sizes said, as `what`); `--hidden`; the network (`mlp`) from `inputs` to
    `outputs` through it."""
    import torch

    torch.manual_seed(args.seed)
    data = load_chunks(Path(args.data))
    tr, va = data["train"], data["valid"]
    print(f"{what}: train {len(tr['rows'])}, valid {len(va['rows'])}", flush=True)
    hidden = [int(x) for x in args.hidden.split(",")]
    return tr, va, hidden, mlp([inputs, *hidden, outputs])


def train_and_write(
    model: Any,
    n_train: int,
    batch: Callable[[np.ndarray, bool], tuple[Any, Any]],
    loss_fn: Callable[[Any, Any], Any],
    valid: Callable[[], dict[str, float]],
    args: argparse.Namespace,
    hidden: list[int],
    meta: dict[str, Any],
) -> None:
    """Train the model as `args` say (`--epochs` of `--batch` rows, Adam at `--lr` on a
    one-cycle schedule, `--seed`), then `export` it to `--out` (default: the shipped weights
    of `meta["name"]`) with what it was trained on and its held-out losses."""
    import torch

    epochs, batch_size, lr = args.epochs, args.batch, args.lr
    rng = np.random.default_rng(args.seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    steps = epochs * (n_train // batch_size)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    t = time.perf_counter()
    step = 0
    for epoch in range(epochs):
        order = rng.permutation(n_train)
        model.train()
        total = 0.0
        for i in range(n_train // batch_size):
            idx = order[i * batch_size : (i + 1) * batch_size]
            x, y = batch(idx, True)
            loss = loss_fn(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item()
            step += 1
        model.eval()
        with torch.no_grad():
            v = valid()
        shown = "  ".join(f"{k} {x:.4f}" for k, x in v.items())
        print(
            f"epoch {epoch + 1}/{epochs}: train {total / max(1, n_train // batch_size):.4f}  "
            f"{shown}  ({time.perf_counter() - t:.0f} s)",
            flush=True,
        )
    meta = {
        **meta,
        "seed": args.seed,
        "epochs": args.epochs,
        "hidden": hidden,
        **{f"valid_{k}": round(v, 4) for k, v in valid().items()},
    }
    out = args.out or f"bot/players/learned/weights/{meta['name']}.npz"
    export(model, Path(out), meta)
    print(f"wrote {out}: {meta}")


def fit_value(args: argparse.Namespace) -> None:
    import torch

    torch.manual_seed(args.seed)
    data = load_chunks(Path(args.data))
    tr, va = data["train"], data["valid"]
    print(
        f"positions: train {len(tr['rows'])} ({len(np.unique(tr['hand']))} hands), "
        f"valid {len(va['rows'])}",
        flush=True,
    )
    rng = np.random.default_rng(args.seed)
    hidden = [int(x) for x in args.hidden.split(",")]
    model = mlp([features.VALUE_INPUTS, *hidden, 2])

    def batch(idx: np.ndarray, augment: bool) -> tuple[Any, Any]:
        rows = tr["rows"][idx]
        if augment:
            rows, _ = shuffle_suits(rows, rng)
        x = torch.from_numpy(features.value_inputs(rows))
        y = torch.from_numpy(
            np.stack([tr["points"][idx] / 120.0, tr["won"][idx]], axis=1).astype(np.float32)
        )
        return x, y

    def loss_fn(out: Any, y: Any) -> Any:
        mse = torch.nn.functional.mse_loss(out[:, 0], y[:, 0])
        bce = torch.nn.functional.binary_cross_entropy_with_logits(out[:, 1], y[:, 1])
        return 10.0 * mse + bce

    vx = torch.from_numpy(features.value_inputs(va["rows"]))
    vp = va["points"] / 120.0
    vw = va["won"].astype(np.float64)

    def valid() -> dict[str, float]:
        with torch.no_grad():
            out = model(vx).numpy().astype(np.float64)
        p = 1.0 / (1.0 + np.exp(-out[:, 1]))
        eps = 1e-6
        return {
            "points_rmse": float(np.sqrt(np.mean((out[:, 0] - vp) ** 2)) * 120),
            "won_logloss": float(-np.mean(vw * np.log(p + eps) + (1 - vw) * np.log(1 - p + eps))),
        }

    base_p = float(tr["won"].mean())
    print(
        f"baselines: points rmse {np.std(vp) * 120:.2f} (the mean), won logloss "
        f"{-np.mean(vw * np.log(base_p) + (1 - vw) * np.log(1 - base_p)):.4f} (the rate)",
        flush=True,
    )
    meta = {
        "name": "value",
        "inputs": "features.value_inputs",
        "outputs": ["caller side points / 120", "logit of the caller side reaching its target"],
        "positions": len(tr["rows"]),
    }
    train_and_write(model, len(tr["rows"]), batch, loss_fn, valid, args, hidden, meta)


def logloss(p: np.ndarray, y: np.ndarray) -> float:
    eps = 1e-6
    return float(-np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)))


def fit_bid(args: argparse.Namespace) -> None:
    import torch

    torch.manual_seed(args.seed)
    data = load_chunks(Path(args.data))
    thresholds = np.array(features.BID_THRESHOLDS)

    def prepare(d: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        rows = [
            features.bid_row([c for c in h if c >= 0], int(c), int(seat), int(n))
            for h, c, seat, n in zip(d["hands"], d["called"], d["seat"], d["players"], strict=True)
        ]
        x = features.bid_inputs(np.array(rows))
        y = (d["points"][:, None] >= thresholds[None, :]).astype(np.float32)
        return x, y

    tx, ty = prepare(data["train"])
    vx, vy = prepare(data["valid"])
    print(f"calls: train {len(tx)}, valid {len(vx)}", flush=True)
    hidden = [int(x) for x in args.hidden.split(",")]
    model = mlp([features.BID_INPUTS, *hidden, len(thresholds)])
    tx_t, ty_t = torch.from_numpy(tx), torch.from_numpy(ty)
    vx_t = torch.from_numpy(vx)
    at61 = features.BID_THRESHOLDS.index(61)

    def batch(idx: np.ndarray, augment: bool) -> tuple[Any, Any]:
        return tx_t[idx], ty_t[idx]

    def loss_fn(out: Any, y: Any) -> Any:
        return torch.nn.functional.binary_cross_entropy_with_logits(out, y)

    def valid() -> dict[str, float]:
        with torch.no_grad():
            p = torch.sigmoid(model(vx_t)).numpy().astype(np.float64)
        return {"logloss_61": logloss(p[:, at61], vy[:, at61]), "logloss_all": logloss(p, vy)}

    rate = ty[:, at61].mean()
    print(f"baseline logloss at 61 (the rate): {logloss(np.full(len(vy), rate), vy[:, at61]):.4f}")
    meta = {
        "name": "bid",
        "inputs": "features.bid_inputs",
        "outputs": [f"logit of the caller side's points >= {t}" for t in features.BID_THRESHOLDS],
        "calls": len(tx),
    }
    train_and_write(model, len(tx), batch, loss_fn, valid, args, hidden, meta)


def fit_infer(args: argparse.Namespace) -> None:
    import torch

    tr, va, hidden, model = start_fit(args, "positions", features.INFER_INPUTS, 40 * 5)
    rng = np.random.default_rng(args.seed)

    def masks(rows: np.ndarray) -> np.ndarray:
        """Per row, the relative seats that may hold a hidden card (others, with cards)."""
        sizes = rows[:, -5:]
        ok = sizes > 0
        ok[:, 0] = False
        return ok

    def permuted(rows: np.ndarray, owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows and owners with the three suits other than the briscola shuffled."""
        out, new_of = shuffle_suits(rows, rng)
        out[:, 40] = renamed(rows[:, 40], new_of)
        return out, moved(owner, new_of)

    def tensors(rows: np.ndarray, owner: np.ndarray) -> tuple[Any, Any]:
        x = torch.from_numpy(features.infer_inputs(rows))
        y = torch.from_numpy(owner.astype(np.int64))
        m = torch.from_numpy(masks(rows))
        return x, (y, m)

    def batch(idx: np.ndarray, augment: bool) -> tuple[Any, Any]:
        rows, owner = tr["rows"][idx], tr["owner"][idx]
        if augment:
            rows, owner = permuted(rows, owner)
        return tensors(rows, owner)

    def card_loss(out: Any, y: Any) -> tuple[Any, Any]:
        owner, ok = y
        logits = out.view(-1, 40, 5).masked_fill(~ok[:, None, :], -1e9)
        logp = torch.log_softmax(logits, dim=2)
        known = owner >= 0
        picked = logp.gather(2, owner.clamp(min=0)[:, :, None])[:, :, 0]
        return -(picked * known).sum(), known.sum()

    def loss_fn(out: Any, y: Any) -> Any:
        total, count = card_loss(out, y)
        return total / count.clamp(min=1)

    vx, vy = tensors(va["rows"], va["owner"])
    v_rows = va["rows"]
    called = v_rows[:, 40]
    socio_rows = np.nonzero(va["owner"][np.arange(len(v_rows)), called] >= 0)[0]

    def valid() -> dict[str, float]:
        with torch.no_grad():
            out = model(vx)
            total, count = card_loss(out, vy)
            logits = out.view(-1, 40, 5).masked_fill(~vy[1][:, None, :], -1e9)
            logp = torch.log_softmax(logits, dim=2).numpy()
        owner = va["owner"]
        socio = logp[socio_rows, called[socio_rows], owner[socio_rows, called[socio_rows]]]
        return {"card_logloss": float(total / count), "socio_logloss": float(-socio.mean())}

    # the baseline: each hidden card with a seat in proportion to its hidden cards
    ok = masks(v_rows)
    sizes = np.where(ok, v_rows[:, -5:], 0).astype(np.float64)
    share = sizes / sizes.sum(1, keepdims=True)
    own = va["owner"]
    known = own >= 0
    base = -np.log(share[np.arange(len(own))[:, None], np.clip(own, 0, 4)])[known].mean()
    base_socio = -np.log(share[socio_rows, own[socio_rows, called[socio_rows]]]).mean()
    print(f"baselines (uniform by hand size): card {base:.4f}, socio {base_socio:.4f}", flush=True)
    meta = {
        "name": "infer",
        "inputs": "features.infer_inputs",
        "outputs": "per canonical card 5 logits: its holder by relative seat",
        "positions": len(tr["rows"]),
    }
    train_and_write(model, len(tr["rows"]), batch, loss_fn, valid, args, hidden, meta)


CENTRED = 10.0  # due: the weight of the differences between a decision's cards


def squared_errors(err: Any, mask: Any) -> Any:
    """The sum of a batch's squared errors (per decision, per card; 0 where `mask` has no
    card), and (weighed `CENTRED`) that of their differences within a decision: what a card
    is worth against the others is what decides."""
    n = mask.sum(1, keepdim=True).clamp(min=1.0)
    centred = (err - err.sum(1, keepdim=True) / n) * mask
    return (err**2).sum() + CENTRED * (centred**2).sum()


def judge(
    values: np.ndarray, legal: np.ndarray, unplayable: float, scale: float = 1
) -> Callable[[np.ndarray], tuple[float, float]]:
    """A choice (the place of the card chosen per decision) against the card of the most
    value (among the `legal` places): how often it is that card (decisions with one best),
    and the value it gives away (times `scale`)."""
    masked = np.where(legal, values, unplayable)
    ordered = np.sort(masked, axis=1)
    top, true_best = ordered[:, -1], masked.argmax(axis=1)
    strict = ordered[:, -1] > ordered[:, -2]
    rows = np.arange(len(values))

    def judged(choice: np.ndarray) -> tuple[float, float]:
        agree = float(np.mean((choice == true_best)[strict]))
        return agree, float(np.mean(top - values[rows, choice]) * scale)

    return judged


def fit_due(args: argparse.Namespace) -> None:
    """Due decisions (`train.due_data`) -> each legal card's value (the seat's card points at
    the end of the hand, /120, squared error on the cards it could play)."""
    import torch

    tr, va, hidden, model = start_fit(args, "decisions", features.DUE_INPUTS, 40)
    if args.init:  # a later round of policy iteration starts from the earlier network
        load_into(model, Path(args.init))
    rng = np.random.default_rng(args.seed)
    none = 255  # `train.due_data.NONE`

    def permuted(rows: np.ndarray, cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The three suits other than the briscola shuffled per row, in the rows and cards."""
        out, new_of = shuffle_suits(rows, rng)
        return out, renamed(cards, new_of)

    def targets(cards: np.ndarray, values: np.ndarray) -> tuple[Any, Any, Any]:
        mask = cards != none
        idx = np.where(mask, cards, 0).astype(np.int64)
        return (
            torch.from_numpy(idx),
            torch.from_numpy((values / 120.0).astype(np.float32)),
            torch.from_numpy(mask.astype(np.float32)),
        )

    def batch(idx: np.ndarray, augment: bool) -> tuple[Any, Any]:
        rows, cards = tr["rows"][idx], tr["cards"][idx].astype(np.int64)
        if augment:
            rows, cards = permuted(rows, cards)
        x = torch.from_numpy(features.due_inputs(rows))
        return x, targets(cards, tr["values"][idx])

    def loss_fn(out: Any, y: Any) -> Any:
        """The values' squared error, and (weighed `CENTRED`) that of their differences
        within a decision: what a card is worth against the others is what decides."""
        idx, target, mask = y
        q = out.gather(1, idx)
        return squared_errors((q - target) * mask, mask) / mask.sum()

    vx = torch.from_numpy(features.due_inputs(va["rows"]))
    v_idx, v_target, v_mask = targets(va["cards"], va["values"])
    vm = v_mask.numpy().astype(bool)
    vt = v_target.numpy()
    judged = judge(vt, vm, -1.0, 120)

    def valid() -> dict[str, float]:
        with torch.no_grad():
            q = model(vx).gather(1, v_idx).numpy()
        err = (q - vt)[vm]
        agree, regret = judged(np.where(vm, q, -9.0).argmax(axis=1))
        return {
            "points_rmse": float(np.sqrt(np.mean(err**2)) * 120),
            "best_agree": agree,
            "regret_points": regret,
        }

    line = f"baseline: points rmse {np.std(vt[vm]) * 120:.2f} (the mean)"
    if "chosen" in va:  # `normal`'s own card there, valued as the network's is
        agree, regret = judged((va["cards"] == va["chosen"][:, None]).argmax(axis=1))
        line += f"; normal: best_agree {agree:.4f}, regret_points {regret:.4f}"
    print(line, flush=True)
    meta = {
        "name": args.name or "due",
        "inputs": "features.due_inputs",
        "outputs": "per canonical card: the seat's card points at the end / 120, playing it",
        "decisions": len(tr["rows"]),
    }
    train_and_write(model, len(tr["rows"]), batch, loss_fn, valid, args, hidden, meta)


CARD_WIN = 60.0  # card: winning the hand is worth this many card points (`hard.CHIAMATA_WIN`)


def fit_card(args: argparse.Namespace) -> None:
    """Chiamata decisions (`train.card_data`) -> per legal card, the caller's side's card
    points at the end of the hand (/120, squared error, and `CENTRED` that of their
    differences within a decision) and whether it reaches its target (a logit, log-loss):
    outputs 0..39 and 40..79 by canonical card."""
    import torch

    tr, va, hidden, model = start_fit(args, "decisions", features.CARD_INPUTS, 80)
    rng = np.random.default_rng(args.seed)
    none = 255  # `train.card_data.NONE`
    target_at = features.INFER_ROW + 5
    table_at = target_at + 1
    role_at = 46  # `features.infer_row`: this seat's role (0 caller, 1 socio, 2 defender)

    def permuted(rows: np.ndarray, cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The three suits other than the briscola shuffled per row, wherever a card is
        named: the cards' codes, the called card, the table, the cards to choose from."""
        out, new_of = shuffle_suits(rows, rng)
        out[:, 40] = renamed(rows[:, 40], new_of)
        out[:, table_at:] = renamed(rows[:, table_at:], new_of)
        return out, renamed(cards, new_of)

    def targets(rows: np.ndarray, cards: np.ndarray, values: np.ndarray) -> tuple[Any, ...]:
        mask = cards != none
        idx = np.where(mask, cards, 0).astype(np.int64)
        won = values >= rows[:, target_at : target_at + 1]
        return (
            torch.from_numpy(idx),
            torch.from_numpy((values / 120.0).astype(np.float32)),
            torch.from_numpy(won.astype(np.float32)),
            torch.from_numpy(mask.astype(np.float32)),
        )

    def batch(idx: np.ndarray, augment: bool) -> tuple[Any, Any]:
        rows, cards = tr["rows"][idx].astype(np.int64), tr["cards"][idx].astype(np.int64)
        if augment:
            rows, cards = permuted(rows, cards)
        x = torch.from_numpy(features.card_inputs(rows))
        return x, targets(rows, cards, tr["values"][idx])

    bce = torch.nn.BCEWithLogitsLoss(reduction="none")

    def loss_fn(out: Any, y: Any) -> Any:
        idx, points, won, mask = y
        q = out[:, :40].gather(1, idx)
        logit = out[:, 40:].gather(1, idx)
        win = (bce(logit, won) * mask).sum()
        return (squared_errors((q - points) * mask, mask) + 0.1 * win) / mask.sum()

    va_rows = va["rows"].astype(np.int64)
    vx = torch.from_numpy(features.card_inputs(va_rows))
    v_idx, _, _, v_mask = targets(va_rows, va["cards"], va["values"])
    vm = v_mask.numpy().astype(bool)
    # each card's worth to the seat: its side's card points and the hand's win (`CARD_WIN`)
    ours = va_rows[:, role_at : role_at + 1] < 2
    pts = va["values"].astype(np.float64)
    won = pts >= va_rows[:, target_at : target_at + 1]
    worth = np.where(ours, pts, 120 - pts) + CARD_WIN * np.where(ours, won, ~won)
    judged = judge(worth, vm, -1e9)

    def valid() -> dict[str, float]:
        with torch.no_grad():
            out = model(vx)
            q = out[:, :40].gather(1, v_idx).numpy() * 120
            p = torch.sigmoid(out[:, 40:].gather(1, v_idx)).numpy()
        err = (q - pts)[vm]
        mine = np.where(ours, q, 120 - q) + CARD_WIN * np.where(ours, p, 1 - p)
        agree, regret = judged(np.where(vm, mine, -1e9).argmax(axis=1))
        return {
            "points_rmse": float(np.sqrt(np.mean(err**2))),
            "best_agree": agree,
            "regret": regret,
        }

    agree, regret = judged((va["cards"] == va["chosen"][:, None]).argmax(axis=1))
    print(
        f"baseline: points rmse {np.std(pts[vm]):.2f} (the mean); "
        f"normal: best_agree {agree:.4f}, regret {regret:.4f}",
        flush=True,
    )
    meta = {
        "name": args.name or "card",
        "inputs": "features.card_inputs",
        "outputs": "per canonical card: the caller's side's card points / 120, then the logit "
        "of reaching the target, playing it",
        "decisions": len(tr["rows"]),
    }
    train_and_write(model, len(tr["rows"]), batch, loss_fn, valid, args, hidden, meta)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("part", choices=["value", "bid", "infer", "due", "card"])
    p.add_argument("--data")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--seed", type=int, default=41)
    p.add_argument("--hidden", default="256,128")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out")
    p.add_argument("--name", help="due: the network's name (default due)")
    p.add_argument("--init", help="due: start from these weights (an earlier round's .npz)")
    p.add_argument("--lr", type=float, default=1e-3)
    args = p.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    fits = {
        "value": fit_value,
        "bid": fit_bid,
        "infer": fit_infer,
        "due": fit_due,
        "card": fit_card,
    }
    args.data = args.data or f".cache/{args.part}"
    fits[args.part](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
