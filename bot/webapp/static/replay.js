/* Briscola — the replay of a finished hand (issue 51.3), in the Mini App's page.
 *
 * Opened by the group's "Rivedi la mano" link (start parameter `h<hand>_t<table>_<key>`):
 * app.js hands over at start (`window.BriscolaReplay.start`) with what it shares (`app.ui`:
 * the session, the API, the cards drawn as SVG, the fatal screen). The server sends the whole
 * hand once (`GET /api/tables/<id>/hands/<k>/replay`, bot/webapp/replay.py): the deal with
 * every hand face up, then each move in the order made. The page steps through it by itself:
 * forward, back, to either end, autoplay, or the slider; step 0 is the deal, step i shows the
 * table once move i was made (a completed trick stays on show with its taker; the cards drawn
 * after it come with the next step). Every text from the server is inserted as text, never
 * as HTML.
 *
 * For tests: `#replay[data-step]` is the step on show, `[data-playing]` whether autoplay
 * runs; `window.BriscolaReplay.state.speed` scales autoplay's pace.
 */
'use strict';

(() => {
  const STEP_MS = 900;       // autoplay: a move on show this long
  const TRICK_MS = 1600;     // ... a completed trick, with its taker, this long

  const R = {
    ui: null,
    data: null,
    at: 0,                   // the step on show (0: the deal)
    timer: null,
    playing: false,
    speed: 1,
    order: new Map(),        // card id -> its place in a hand (by suit, the strongest first)
    cards: new Map(),        // card id -> the card as the server drew it
    els: {},
  };
  window.BriscolaReplay = { start, state: R, show, play, pause };

  const $ = (id) => document.getElementById(id);
  const w = (key) => (R.data && R.data.words && R.data.words[key]) || '';

  // ------------------------------------------------------------------ start

  async function start(ui, launch) {
    R.ui = ui;
    $('app').hidden = true;
    const root = $('replay');
    root.hidden = false;
    try {
      await ui.renewSession();
      const res = await ui.api('GET', `/api/tables/${launch.id}/hands/${launch.hand}/replay`);
      const data = res.data || {};
      if (res.status === 401) return ui.fatal(ui.t('denied'), data.error || ui.t('reopen'));
      if (res.status === 403) return ui.fatal(ui.t('denied'), data.error || ui.t('openFromBot'));
      if (!res.ok || !Array.isArray(data.steps)) {
        return ui.fatal(data.title || ui.t('notFound'), data.error || ui.t('openFromBot'));
      }
      R.data = data;
    } catch (e) {
      if (e instanceof ui.FatalError) return ui.fatal(ui.t('denied'), e.message);
      return ui.fatal(ui.t('network'), ui.t('openFromBot'));
    }
    if (R.data.lang) ui.setLang(R.data.lang);
    R.data.deck.forEach((card, k) => { R.order.set(card.id, k); R.cards.set(card.id, card); });
    build();
    show(0);
    document.addEventListener('keydown', onKey);
    window.addEventListener('resize', () => show(R.at));
  }

  // ------------------------------------------------------------------ the frame of the page

  function button(name, label, icon) {
    const { h, s } = R.ui;
    const svg = s('svg', { viewBox: '0 0 24 24', 'aria-hidden': 'true', focusable: 'false' },
      icon.map((d) => s('path', { d, fill: 'currentColor' })));
    const el = h('button', { type: 'button', class: `rp-btn rp-${name}`, 'aria-label': label, title: label });
    el.appendChild(svg);
    return el;
  }

  const ICONS = {
    start: ['M5 5h2.5v14H5z', 'M19 5v14L8.5 12z'],
    back: ['M17 5v14L6 12z'],
    play: ['M7 5v14l11-7z'],
    pause: ['M6.5 5h4v14h-4z', 'M13.5 5h4v14h-4z'],
    forward: ['M7 5v14l11-7z'],
    end: ['M16.5 5H19v14h-2.5z', 'M5 5v14l10.5-7z'],
  };

  function build() {
    const { h } = R.ui;
    const d = R.data;
    const root = R.ui.clear($('replay'));
    // "Rivedi Briscola chiamata (5) · mano 1": each part kept whole while it fits a line
    const title = h('h1', { class: 'rp-title' }, h('span', { class: 'rp-tag', text: w('tag') }));
    String(d.title || '').split(' · ').forEach((part, k, all) => {
      title.appendChild(document.createTextNode(' '));
      title.appendChild(h('span', { class: 'part', text: k < all.length - 1 ? `${part} ·` : part }));
    });
    const info = h('section', { class: 'rp-info', 'aria-label': d.chiamata ? w('auction') : w('briscola') });
    const felt = h('main', { class: 'rp-felt' });
    const rows = d.seats.map((seat, i) => {
      const row = h('div', { class: 'rp-seat', dataset: { seat: String(i) } },
        h('div', { class: 'rp-who' },
          h('span', { class: 'name-text', text: seat.level ? seat.short : seat.name }),
          seat.level ? h('span', { class: 'rp-level', text: seat.level }) : null,
          h('span', { class: 'rp-chips' })),
        h('div', { class: 'rp-hand' }),
        h('div', { class: 'rp-play' }));
      felt.appendChild(row);
      return row;
    });
    const step = h('section', { class: 'rp-step', 'aria-live': 'polite' },
      h('div', { class: 'rp-line' }), h('div', { class: 'rp-mark' }), h('div', { class: 'rp-result' }));
    const range = h('input', {
      type: 'range', class: 'rp-range', min: 0, max: d.steps.length, step: 1, value: 0,
      'aria-label': w('step'),
    });
    range.addEventListener('input', () => { pause(); show(Number(range.value)); });
    const ticks = h('div', { class: 'rp-ticks', 'aria-hidden': 'true' });
    const n = d.steps.length;
    d.steps.forEach((st, k) => {
      if (!noteworthy(st.mark)) return;
      const tick = h('span', { class: `rp-tick ${st.mark.kind}` });
      tick.style.left = `calc(11px + (100% - 22px) * ${(k + 1) / n})`;
      ticks.appendChild(tick);
    });
    const track = h('div', { class: 'rp-track', title: w('marks') }, ticks, range);
    const controls = h('nav', { class: 'rp-controls' },
      button('start', w('start'), ICONS.start),
      button('back', w('back'), ICONS.back),
      button('toggle', w('play'), ICONS.play),
      button('forward', w('forward'), ICONS.forward),
      button('end', w('end'), ICONS.end));
    controls.addEventListener('click', (ev) => {
      const el = ev.target instanceof Element ? ev.target.closest('.rp-btn') : null;
      if (!el || el.disabled) return;
      R.ui.haptic('select');
      if (el.classList.contains('rp-start')) { pause(); show(0); }
      else if (el.classList.contains('rp-back')) { pause(); show(R.at - 1); }
      else if (el.classList.contains('rp-forward')) { pause(); show(R.at + 1); }
      else if (el.classList.contains('rp-end')) { pause(); show(n); }
      else if (R.playing) pause();
      else play();
    });
    root.append(h('header', { class: 'rp-top' }, title), info, felt, step, track, controls);
    R.els = { root, info, felt, rows, step, range, controls };
  }

  // ------------------------------------------------------------------ the table at step k

  /** What the table looks like once the first `k` moves are made. */
  function stateAt(k) {
    const d = R.data;
    const hands = d.hands.map((cards) => cards.slice());
    const points = d.seats.map(() => 0);
    let trick = [];        // [{seat, card, mark}] of the trick on show
    let taken = null;      // {winner, points}: the trick on show is complete
    let briscola = d.briscola;
    let called = null;
    let talon = d.talon;
    let turned = d.turned;
    const bids = [];
    let drawn = null;      // {draws, talon}: drawn once the completed trick leaves the table
    for (let i = 0; i < k; i++) {
      const st = d.steps[i];
      if (taken) {
        trick = [];
        taken = null;
        drawn.draws.forEach(([seat, card]) => {
          hands[seat].push(card);
          if (card === turned) turned = null;
        });
        talon = drawn.talon;
      }
      if (st.trick === 0 && st.kind !== 'suit' && st.kind !== 'call') bids.push({ ...st, index: i });
      if (st.card !== null && st.card !== undefined) {
        const hand = hands[st.seat];
        const at = hand.indexOf(st.card);
        if (at >= 0) hand.splice(at, 1);
        trick.push({ seat: st.seat, card: st.card, mark: st.mark });
      }
      if (st.taken) {
        taken = st.taken;
        points[st.taken.winner] += st.taken.points;
        drawn = { draws: st.draws || [], talon: st.talon };
      } else {
        talon = st.talon;
      }
      if (st.called) called = st.called;
      if (st.briscola) briscola = st.briscola;
    }
    return { hands, points, trick, taken, briscola, called, talon, turned, bids };
  }

  /** Show step `k` (clamped to the hand). */
  function show(k) {
    const d = R.data;
    if (!d) return;
    const n = d.steps.length;
    R.at = Math.max(0, Math.min(n, Math.round(Number(k) || 0)));
    const at = R.at;
    const now = stateAt(at);
    const step = at > 0 ? d.steps[at - 1] : null;
    renderInfo(now, step);
    renderRows(now, step);
    renderStep(now, step);
    const { range, controls, root } = R.els;
    range.value = String(at);
    range.setAttribute('aria-valuetext', `${w('step')} ${at}/${n}`);
    controls.querySelector('.rp-start').disabled = at === 0;
    controls.querySelector('.rp-back').disabled = at === 0;
    controls.querySelector('.rp-forward').disabled = at === n;
    controls.querySelector('.rp-end').disabled = at === n;
    root.dataset.step = String(at);
    root.dataset.steps = String(n);
  }

  /** Whether the auction and the call are over at the step on show. */
  function auctionOver() {
    const moves = R.data.steps.filter((st) => st.trick === 0).length;
    return moves > 0 && R.at >= moves;
  }

  function nameOf(seat) {
    const s = R.data.seats[seat];
    return s ? (s.level ? s.short : s.name) : '?';
  }

  function card(id, cls) {
    const c = R.cards.get(id);
    return R.ui.cardEl(c || { id, r: '?', s: 0, name: '' }, { mini: true, cls, french: R.data.french });
  }

  const BADGES = { cost: '❌', best: '✨', only: '👍', ok: '✔️' };

  /** A mark shown wherever its move is (a bid's chip, a card on the table, the slider): a
   * cost, or the hand's best play; the others only while their move is the one on show. */
  const noteworthy = (mark) => !!mark && (mark.kind === 'cost' || mark.kind === 'best');

  function badge(mark) {
    if (!mark) return null;
    return R.ui.h('span', { class: `rp-badge ${mark.kind}`, role: 'img', 'aria-label': mark.text, title: mark.text,
      text: BADGES[mark.kind] || '' });
  }

  function renderInfo(now, step) {
    const { h, clear, suitIcon } = R.ui;
    const d = R.data;
    const el = clear(R.els.info);
    if (d.chiamata) {
      const bids = h('div', { class: 'rp-bids' }, h('span', { class: 'label', text: w('auction') }));
      now.bids.forEach((b) => {
        const chip = h('span', {
          class: 'bid-chip' + (step && b.index === R.at - 1 ? ' last' : ''), dataset: { by: String(b.seat) },
        }, h('span', { class: 'who', text: nameOf(b.seat) }), h('span', { class: 'what', text: String(b.label) }));
        if (noteworthy(b.mark) || (b.mark && b.index === R.at - 1)) chip.appendChild(badge(b.mark));
        bids.appendChild(chip);
      });
      el.appendChild(bids);
      requestAnimationFrame(() => { bids.scrollLeft = bids.scrollWidth; });
    }
    const parts = [];
    const a = d.auction;
    const item = (cls, label, ...kids) => h('span', { class: `item ${cls}` },
      h('span', { class: 'label', text: label }), ...kids);
    if (a && a.caller >= 0 && auctionOver()) {
      // the call (§7.5, §7.9) or carichi (§7.8), the target, the socio or alone (§7.7)
      parts.push(item('caller', w('caller'), h('span', { class: 'name-text', text: nameOf(a.caller) })));
      if (now.called) {
        parts.push(item('called', w('called'), card(now.called.id, 'tiny'),
          h('span', { class: 'called-name', text: now.called.name })));
      }
      parts.push(item('target', w('target'), h('b', { text: String(a.target) })));
      if (a.socio >= 0) parts.push(item('socio', w('socio'), h('span', { class: 'name-text', text: nameOf(a.socio) })));
      else if (a.alone) parts.push(h('span', { class: 'item alone', text: w('alone') }));
    } else if (now.briscola) {
      parts.push(item('briscola', w('briscola'), h('span', { class: 'rp-suit' }, suitIcon(now.briscola.suit, !!d.french)),
        h('b', { text: now.briscola.name })));
    }
    if (now.turned !== null && now.turned !== undefined) parts.push(card(now.turned, 'tiny'));
    if (!d.chiamata && now.talon > 0) parts.push(item('talon', w('talon'), h('b', { text: String(now.talon) })));
    if (parts.length) el.appendChild(h('div', { class: 'summary' }, ...parts));
    el.hidden = !el.firstChild;
  }

  function renderRows(now, step) {
    const { h, clear, signed } = R.ui;
    const d = R.data;
    const end = R.at === d.steps.length;
    const a = d.auction;
    const known = auctionOver();  // the caller and the socio (the hand is over: both known)
    const delta = {};
    if (end && d.outcome) (d.outcome.rows || []).forEach((r) => { delta[r.seat] = r.delta; });
    R.els.rows.forEach((row, i) => {
      const mover = !!step && step.seat === i;
      const takes = !!now.taken && now.taken.winner === i;
      row.className = ['rp-seat', mover ? 'mover' : '', takes ? 'takes' : ''].filter(Boolean).join(' ');
      const chips = clear(row.querySelector('.rp-chips'));
      if (i === d.dealer) chips.appendChild(h('span', { class: 'chip dealer', title: w('dealer'), 'aria-label': w('dealer'), text: 'M' }));
      if (a && known && a.caller === i) chips.appendChild(h('span', { class: 'flag', title: w('caller'), 'aria-label': w('caller'), text: '📣' }));
      if (a && known && a.socio === i) chips.appendChild(h('span', { class: 'flag', title: w('socio'), 'aria-label': w('socio'), text: '🤝' }));
      chips.appendChild(h('span', { class: 'chip points', text: `${now.points[i]} ${w('points')}` }));
      if (end && delta[i] !== undefined) {
        chips.appendChild(h('span', { class: 'chip delta' + (delta[i] > 0 ? ' plus' : delta[i] < 0 ? ' minus' : ''), text: signed(delta[i]) }));
      }
      if (takes) chips.appendChild(h('span', { class: 'chip takes', text: `${w('takes')} +${now.taken.points}` }));
      // the hand, face up, by suit and strength
      const hand = clear(row.querySelector('.rp-hand'));
      const cards = now.hands[i].slice().sort((x, y) => (R.order.get(x) ?? 0) - (R.order.get(y) ?? 0));
      const room = Math.max(60, hand.clientWidth || 180);
      const most = d.seats.length <= 3 ? 44 : d.seats.length === 4 ? 36 : 30;  // few seats: larger
      const cw = Math.max(14, Math.min(most, Math.floor(room / Math.max(cards.length, 1)) - 1));
      hand.style.setProperty('--cw', `${cw}px`);
      cards.forEach((c) => hand.appendChild(card(c, 'rp-card')));
      // what they put on the table in this trick
      const slot = clear(row.querySelector('.rp-play'));
      const mine = now.trick.filter((p) => p.seat === i);
      mine.forEach((p) => {
        const el = card(p.card, 'rp-card' + (takes && p === mine[mine.length - 1] ? ' won' : ''));
        el.setAttribute('aria-label', `${nameOf(i)}: ${(R.cards.get(p.card) || {}).name || ''}`);
        slot.appendChild(el);
        if (noteworthy(p.mark) || (p.mark && step && step.card === p.card)) slot.appendChild(badge(p.mark));
      });
      slot.classList.toggle('empty', !mine.length);
    });
  }

  function renderStep(now, step) {
    const { h, clear } = R.ui;
    const d = R.data;
    const n = d.steps.length;
    const box = R.els.step;
    const line = clear(box.querySelector('.rp-line'));
    const mark = clear(box.querySelector('.rp-mark'));
    const where = !step ? '' : step.trick > 0 ? w('trick').split('{n}').join(String(step.trick)) : w('auction');
    line.appendChild(h('span', { class: 'rp-count', text: `${w('step')} ${R.at}/${n}` }));
    if (!step) {
      line.appendChild(h('span', { class: 'rp-what', text: w('deal') }));
    } else {
      line.appendChild(h('span', { class: 'rp-where', text: where }));
      line.appendChild(h('span', { class: 'rp-what' },
        h('b', { class: 'name-text', text: nameOf(step.seat) }), `: ${step.label}`));
      if (step.taken) {
        line.appendChild(h('span', { class: 'rp-taken' }, h('b', { class: 'name-text', text: nameOf(step.taken.winner) }),
          ` ${w('takes')} +${step.taken.points}`));
      }
    }
    if (step && step.mark) {
      mark.className = `rp-mark ${step.mark.kind}`;
      mark.appendChild(h('span', { class: 'rp-mark-text', text: step.mark.text }));
      if (step.mark.best_card) mark.appendChild(card(step.mark.best_card.id, 'rp-best'));
    } else if (!step && !d.review) {
      mark.className = 'rp-mark none';
      mark.appendChild(h('span', { class: 'rp-mark-text', text: w('no_review') }));
    } else {
      mark.className = 'rp-mark';
    }
    mark.hidden = !mark.firstChild;
    // the end: who won (chiamata: the caller's points against the target, §7.11)
    const result = box.querySelector('.rp-result');
    const o = d.outcome;
    const text = R.at === n && o ? [o.caller || o.headline, o.cappotto ? '🎉 Cappotto!' : ''].filter(Boolean).join(' ') : '';
    result.textContent = text;
    result.hidden = !text;
  }

  // ------------------------------------------------------------------ autoplay, keys

  function tick() {
    const d = R.data;
    if (!R.playing) return;
    if (R.at >= d.steps.length) return pause();
    show(R.at + 1);
    const step = d.steps[R.at - 1];
    R.timer = setTimeout(tick, ((step && step.taken) ? TRICK_MS : STEP_MS) * R.speed);
  }

  function play() {
    if (!R.data) return;
    if (R.at >= R.data.steps.length) show(0);
    R.playing = true;
    setToggle();
    clearTimeout(R.timer);
    R.timer = setTimeout(tick, STEP_MS * R.speed * 0.4);
  }

  function pause() {
    R.playing = false;
    clearTimeout(R.timer);
    if (R.els.controls) setToggle();
  }

  function setToggle() {
    const btn = R.els.controls.querySelector('.rp-toggle');
    const { s, clear } = R.ui;
    const label = R.playing ? w('pause') : w('play');
    btn.setAttribute('aria-label', label);
    btn.title = label;
    btn.setAttribute('aria-pressed', R.playing ? 'true' : 'false');
    const svg = clear(btn.querySelector('svg'));
    (R.playing ? ICONS.pause : ICONS.play).forEach((d) => svg.appendChild(s('path', { d, fill: 'currentColor' })));
    R.els.root.dataset.playing = R.playing ? '1' : '0';
  }

  function onKey(ev) {
    if (ev.target instanceof HTMLInputElement) return;
    if (ev.key === 'ArrowRight') { pause(); show(R.at + 1); }
    else if (ev.key === 'ArrowLeft') { pause(); show(R.at - 1); }
    else if (ev.key === 'Home') { pause(); show(0); }
    else if (ev.key === 'End') { pause(); show(R.data.steps.length); }
    else if (ev.key === ' ') { ev.preventDefault(); if (R.playing) pause(); else play(); }
  }
})();
