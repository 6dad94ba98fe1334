/* Briscola — Telegram Mini App front end.
 *
 * One table, live through Server-Sent Events; a seated player plays by tapping.
 * Plain ES2020, no build step. Every text that comes from the server (names, labels,
 * messages, result lines) is inserted as text (textContent / createTextNode), never as HTML.
 * The only global is `window.BriscolaApp` (the `app` object below), for debugging.
 */
'use strict';

(() => {
  // ------------------------------------------------------------------ state

  const app = {
    tg: null,            // window.Telegram.WebApp, or null outside Telegram
    lang: 'it',
    tableId: null,
    token: null,
    userId: null,
    snap: null,          // the snapshot on screen
    es: null,            // the EventSource
    retries: 0,          // reconnection attempts since the last snapshot
    rebootTimer: null,
    refreshTimer: null,
    toastTimer: null,
    busy: false,         // an act / next request is in flight
    awaiting: null,      // move number shown when an accepted act was sent (wait for the next snapshot)
    awaitTimer: null,
    stopped: false,      // a fatal error was shown: stop everything
  };
  window.BriscolaApp = app;

  // ------------------------------------------------------------------ words

  const WORDS = {
    it: {
      talon: 'Tallone', lastTrick: 'Ultima presa', briscola: 'Briscola', auction: 'Asta',
      caller: 'Chiamante', socio: 'Socio', target: 'Obiettivo', called: 'Chiamata',
      nextHand: 'Mano successiva', spectator: 'Spettatore', reconnecting: 'Riconnessione…',
      notFound: 'Tavolo non trovato', denied: 'Accesso negato', youAreSocio: 'Sei il socio',
      alone: 'da solo', dealer: 'Mazziere', dealerShort: 'M', cards: 'carte', you: 'tu',
      away: 'assente', computer: 'computer', passed: 'ha passato', team: 'Squadra',
      loading: 'Caricamento…', network: 'Errore di rete', hand: 'La tua mano',
      choices: 'Scelte', took: 'prende', points: 'punti', turn: 'di turno',
      noBids: 'nessuna offerta', hidden: 'Carta coperta', trick: 'Presa in corso',
      openFromBot: 'Apri il tavolo dal bot su Telegram.', result: 'Risultato',
    },
    en: {
      talon: 'Talon', lastTrick: 'Last trick', briscola: 'Briscola', auction: 'Auction',
      caller: 'Caller', socio: 'Partner', target: 'Target', called: 'Called',
      nextHand: 'Next hand', spectator: 'Spectator', reconnecting: 'Reconnecting…',
      notFound: 'Table not found', denied: 'Access denied', youAreSocio: 'You are the partner',
      alone: 'alone', dealer: 'Dealer', dealerShort: 'D', cards: 'cards', you: 'you',
      away: 'away', computer: 'computer', passed: 'passed', team: 'Team',
      loading: 'Loading…', network: 'Network error', hand: 'Your hand',
      choices: 'Choices', took: 'takes', points: 'points', turn: 'to play',
      noBids: 'no bids yet', hidden: 'Face-down card', trick: 'Current trick',
      openFromBot: 'Open the table from the bot in Telegram.', result: 'Result',
    },
  };

  function t(key) {
    const words = WORDS[app.lang] || WORDS.it;
    return words[key] !== undefined ? words[key] : WORDS.it[key] || key;
  }

  // ------------------------------------------------------------------ DOM helpers

  const $ = (id) => document.getElementById(id);

  /** An HTML element with a class, attributes and children (strings become text nodes). */
  function h(tag, props, ...kids) {
    const el = document.createElement(tag);
    if (props) {
      for (const [k, v] of Object.entries(props)) {
        if (v === null || v === undefined || v === false) continue;
        if (k === 'class') el.className = v;
        else if (k === 'text') el.textContent = v;
        else if (k === 'dataset') Object.assign(el.dataset, v);
        else if (k === 'style') Object.assign(el.style, v);
        else el.setAttribute(k, v === true ? '' : String(v));
      }
    }
    for (const kid of kids) {
      if (kid === null || kid === undefined || kid === false) continue;
      el.appendChild(typeof kid === 'string' ? document.createTextNode(kid) : kid);
    }
    return el;
  }

  const SVGNS = 'http://www.w3.org/2000/svg';

  /** An SVG element; `attrs` values are set as attributes, `kids` appended. */
  function s(tag, attrs, kids) {
    const el = document.createElementNS(SVGNS, tag);
    if (attrs) for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    if (kids) for (const kid of kids) if (kid) el.appendChild(kid);
    return el;
  }

  function clear(el) {
    while (el.firstChild) el.removeChild(el.firstChild);
    return el;
  }

  // ------------------------------------------------------------------ suits and cards (SVG)

  // Each glyph is drawn in a 100×100 box.
  const ITALIAN_GLYPHS = [
    // 0 denari: a gold coin with an inner ring and a rosette
    () => [
      s('circle', { cx: 50, cy: 50, r: 45, fill: '#f4bf3a', stroke: '#a8680c', 'stroke-width': 5 }),
      s('circle', { cx: 50, cy: 50, r: 31, fill: '#fbd866', stroke: '#c07d10', 'stroke-width': 4 }),
      s('path', {
        d: 'M50 25 L56 44 L75 50 L56 56 L50 75 L44 56 L25 50 L44 44 Z',
        fill: '#e39a12', stroke: '#a8680c', 'stroke-width': 3, 'stroke-linejoin': 'round',
      }),
      s('circle', { cx: 50, cy: 50, r: 7, fill: '#c0392b' }),
    ],
    // 1 coppe: a red goblet with a gold rim, stem and foot
    () => [
      s('path', {
        d: 'M17 14 H83 C83 44 70 58 50 60 C30 58 17 44 17 14 Z',
        fill: '#d3302f', stroke: '#7d1414', 'stroke-width': 4, 'stroke-linejoin': 'round',
      }),
      s('path', { d: 'M27 24 C29 40 36 49 46 52', fill: 'none', stroke: '#f08a80', 'stroke-width': 4, 'stroke-linecap': 'round' }),
      s('rect', { x: 11, y: 6, width: 78, height: 11, rx: 5, fill: '#f2b51b', stroke: '#9a6400', 'stroke-width': 4 }),
      s('rect', { x: 44, y: 60, width: 12, height: 20, fill: '#f2b51b', stroke: '#9a6400', 'stroke-width': 4 }),
      s('ellipse', { cx: 50, cy: 67, rx: 10, ry: 6, fill: '#f2b51b', stroke: '#9a6400', 'stroke-width': 3 }),
      s('path', {
        d: 'M22 95 C25 83 38 79 50 79 C62 79 75 83 78 95 Z',
        fill: '#f2b51b', stroke: '#9a6400', 'stroke-width': 4, 'stroke-linejoin': 'round',
      }),
    ],
    // 2 spade: a steel sword, blade up, blue hilt
    () => [
      s('path', {
        d: 'M50 2 L60 17 L59 66 L41 66 L40 17 Z',
        fill: '#d5dee9', stroke: '#2b4462', 'stroke-width': 4, 'stroke-linejoin': 'round',
      }),
      s('path', { d: 'M50 14 V62', stroke: '#7d93b2', 'stroke-width': 3 }),
      s('rect', { x: 20, y: 64, width: 60, height: 10, rx: 5, fill: '#2160b0', stroke: '#0f2c55', 'stroke-width': 3 }),
      s('rect', { x: 43.5, y: 74, width: 13, height: 15, fill: '#7a4a1f', stroke: '#3d230b', 'stroke-width': 3 }),
      s('circle', { cx: 50, cy: 92, r: 6.5, fill: '#2160b0', stroke: '#0f2c55', 'stroke-width': 3 }),
    ],
    // 3 bastoni: a knobbly wooden club with green leaves
    () => [
      s('g', { transform: 'rotate(-22 50 50)' }, [
        s('path', {
          d: 'M43 97 C41 72 35 42 33 22 C32 9 41 2 50 2 C59 2 68 9 67 22 C65 42 59 72 57 97 Z',
          fill: '#b0743a', stroke: '#5a3310', 'stroke-width': 4, 'stroke-linejoin': 'round',
        }),
        s('path', { d: 'M45 14 C43 40 46 66 49 90', fill: 'none', stroke: '#d9a26a', 'stroke-width': 3, 'stroke-linecap': 'round' }),
        s('circle', { cx: 35, cy: 34, r: 6, fill: '#8a5526', stroke: '#5a3310', 'stroke-width': 3 }),
        s('circle', { cx: 64, cy: 50, r: 6, fill: '#8a5526', stroke: '#5a3310', 'stroke-width': 3 }),
        s('circle', { cx: 41, cy: 68, r: 5, fill: '#8a5526', stroke: '#5a3310', 'stroke-width': 3 }),
        s('ellipse', { cx: 78, cy: 24, rx: 12, ry: 5.5, transform: 'rotate(-35 78 24)', fill: '#3c9a40', stroke: '#1f5e22', 'stroke-width': 2.5 }),
        s('ellipse', { cx: 22, cy: 54, rx: 11, ry: 5, transform: 'rotate(30 22 54)', fill: '#3c9a40', stroke: '#1f5e22', 'stroke-width': 2.5 }),
      ]),
    ],
  ];

  const FRENCH_PATHS = [
    // 0 ♦
    'M50 2 C60 20 73 36 90 50 C73 64 60 80 50 98 C40 80 27 64 10 50 C27 36 40 20 50 2 Z',
    // 1 ♥
    'M50 92 C22 70 5 52 5 31 C5 15 17 5 31 5 C41 5 47 11 50 19 C53 11 59 5 69 5 C83 5 95 15 95 31 C95 52 78 70 50 92 Z',
    // 2 ♠
    'M50 3 C32 26 6 40 6 60 C6 73 16 81 28 81 C37 81 43 77 46 71 C45 82 40 90 31 97 H69 C60 90 55 82 54 71 C57 77 63 81 72 81 C84 81 94 73 94 60 C94 40 68 26 50 3 Z',
    // 3 ♣ (drawn from circles, see suitGlyph)
    'M45 52 C45 74 41 88 30 97 H70 C59 88 55 74 55 52 Z',
  ];

  const SUIT_COLORS_IT = ['#a8650a', '#c62828', '#1f57a0', '#2e7033'];
  const SUIT_COLORS_FR = ['#d32f2f', '#d32f2f', '#1a1a1a', '#1a1a1a'];

  function suitColor(suit, french) {
    return (french ? SUIT_COLORS_FR : SUIT_COLORS_IT)[suit] || '#333';
  }

  /** The suit symbol as SVG nodes in a 100×100 box. */
  function suitGlyph(suit, french) {
    if (!french) return (ITALIAN_GLYPHS[suit] || ITALIAN_GLYPHS[0])();
    const fill = suitColor(suit, true);
    if (suit === 3) {
      return [
        s('circle', { cx: 50, cy: 27, r: 21, fill }),
        s('circle', { cx: 27, cy: 58, r: 21, fill }),
        s('circle', { cx: 73, cy: 58, r: 21, fill }),
        s('circle', { cx: 50, cy: 52, r: 12, fill }),
        s('path', { d: FRENCH_PATHS[3], fill }),
      ];
    }
    return [s('path', { d: FRENCH_PATHS[suit] || FRENCH_PATHS[0], fill })];
  }

  /** A standalone suit icon (an <svg>), for suit choices and the briscola badge. */
  function suitIcon(suit, french) {
    return s('svg', { viewBox: '0 0 100 100', class: 'suit-icon', 'aria-hidden': 'true', focusable: 'false' },
      suitGlyph(suit, french));
  }

  /** The glyph placed at (x, y) with the given size, inside a card. */
  function placedGlyph(suit, french, x, y, size) {
    return s('g', { transform: `translate(${x} ${y}) scale(${size / 100})` }, suitGlyph(suit, french));
  }

  const FIGURES = new Set(['F', 'C', 'R', 'J', 'Q', 'K', 'D', 'Re', 'Fa', 'Ca']);

  /**
   * A card face as an <svg> (viewBox 60×90): a white rounded card, the rank in two corners and
   * the suit symbol in the middle. `mini` draws a big rank and symbol only, for small sizes.
   */
  function cardSvg(card, french, mini) {
    const color = suitColor(card.s, french);
    const rank = String(card.r === undefined || card.r === null ? '' : card.r);
    const figure = FIGURES.has(rank);
    const kids = [
      s('rect', { x: 0.75, y: 0.75, width: 58.5, height: 88.5, rx: 6, fill: '#fffdf8', stroke: '#8a8f98', 'stroke-width': 1.5 }),
    ];
    if (mini) {
      const size = rank.length > 1 ? 22 : 30;
      kids.push(s('text', {
        x: 5, y: 28, 'font-size': size, 'font-weight': 700, fill: color,
        'font-family': 'system-ui, -apple-system, Segoe UI, Roboto, Arial, sans-serif',
      }));
      kids[kids.length - 1].textContent = rank;
      kids.push(placedGlyph(card.s, french, 12, 38, 46));
    } else {
      if (figure) {
        kids.push(s('rect', {
          x: 7, y: 7, width: 46, height: 76, rx: 3, fill: 'none', stroke: color,
          'stroke-width': 1.3, 'stroke-opacity': 0.55,
        }));
      }
      const size = rank.length > 1 ? 12 : 15;
      const corner = (transform) => {
        const txt = s('text', {
          x: 5.5, y: 16, 'font-size': size, 'font-weight': 700, fill: color,
          'font-family': 'system-ui, -apple-system, Segoe UI, Roboto, Arial, sans-serif',
        });
        txt.textContent = rank;
        return s('g', transform ? { transform } : null, [txt, placedGlyph(card.s, french, 5, 19, 10)]);
      };
      kids.push(corner(null));
      kids.push(corner('rotate(180 30 45)'));
      kids.push(placedGlyph(card.s, french, 13, 28, 34));
    }
    return s('svg', {
      viewBox: '0 0 60 90', class: 'face', 'aria-hidden': 'true', focusable: 'false',
      preserveAspectRatio: 'xMidYMid meet',
    }, kids);
  }

  /** A face-down card back as an <svg> (viewBox 60×90). */
  function backSvg() {
    let lattice = '';
    for (let y = 12; y <= 80; y += 8) {
      for (let x = (y / 8) % 2 ? 12 : 16; x <= 48; x += 8) lattice += `M${x} ${y - 3}l3 3l-3 3l-3-3z`;
    }
    return s('svg', { viewBox: '0 0 60 90', class: 'back', 'aria-hidden': 'true', focusable: 'false' }, [
      s('rect', { x: 0.75, y: 0.75, width: 58.5, height: 88.5, rx: 6, fill: '#fdfdfd', stroke: '#8a8f98', 'stroke-width': 1.5 }),
      s('rect', { x: 5, y: 5, width: 50, height: 80, rx: 3.5, fill: '#1d4f91' }),
      s('path', { d: lattice, fill: '#ffffff', 'fill-opacity': 0.22 }),
      s('rect', { x: 8, y: 8, width: 44, height: 74, rx: 2.5, fill: 'none', stroke: '#f3c54b', 'stroke-width': 1.2 }),
      s('ellipse', { cx: 30, cy: 45, rx: 10, ry: 14, fill: '#c62828', stroke: '#f3c54b', 'stroke-width': 2 }),
    ]);
  }

  /** A card element (div with role=img, or a button) carrying data-card and aria-label. */
  function cardEl(card, opts = {}) {
    const french = !!(app.snap && app.snap.french);
    const el = opts.button
      ? h('button', { type: 'button', class: 'card' })
      : h('div', { class: 'card', role: 'img' });
    if (opts.cls) el.className += ' ' + opts.cls;
    el.dataset.card = String(card.id);
    el.setAttribute('aria-label', card.name || '');
    el.title = card.name || '';
    el.appendChild(cardSvg(card, french, !!opts.mini));
    return el;
  }

  function backEl(cls, label) {
    const el = h('div', { class: 'card back-card' + (cls ? ' ' + cls : ''), role: 'img', 'aria-label': label || t('hidden') });
    el.appendChild(backSvg());
    return el;
  }

  // ------------------------------------------------------------------ Telegram

  function initTelegram() {
    const tg = window.Telegram && window.Telegram.WebApp;
    app.tg = tg || null;
    if (!tg) return;
    const call = (name, ...args) => {
      try { if (typeof tg[name] === 'function') tg[name](...args); } catch (e) { /* older client */ }
    };
    call('ready');
    call('expand');
    const modern = typeof tg.isVersionAtLeast !== 'function' || tg.isVersionAtLeast('7.7');
    if (modern) call('disableVerticalSwipes');
    applyTheme();
    try { if (typeof tg.onEvent === 'function') tg.onEvent('themeChanged', applyTheme); } catch (e) { /* ignore */ }
  }

  /** Copy Telegram's theme parameters into the --tg-theme-* CSS variables. */
  function applyTheme() {
    const tg = app.tg;
    const params = (tg && tg.themeParams) || {};
    const root = document.documentElement.style;
    for (const [key, value] of Object.entries(params)) {
      if (typeof value === 'string' && /^#[0-9a-f]{3,8}$|^rgba?\(/i.test(value)) {
        root.setProperty('--tg-theme-' + key.replace(/_/g, '-'), value);
      }
    }
    if (tg && tg.colorScheme) document.documentElement.dataset.scheme = tg.colorScheme;
  }

  function haptic(kind) {
    try {
      const hf = app.tg && app.tg.HapticFeedback;
      if (!hf) return;
      if (kind === 'error') { if (typeof hf.notificationOccurred === 'function') hf.notificationOccurred('error'); }
      else if (typeof hf.impactOccurred === 'function') hf.impactOccurred('light');
    } catch (e) { /* older client */ }
  }

  /** The table id from the start parameter (`t123`) or the page's `?t=123`. */
  function tableIdFromLaunch() {
    let param = null;
    try {
      const unsafe = app.tg && app.tg.initDataUnsafe;
      if (unsafe && unsafe.start_param) param = String(unsafe.start_param);
    } catch (e) { /* ignore */ }
    let m = param && /^t(\d+)$/.exec(param);
    if (m) return Number(m[1]);
    try {
      const query = new URLSearchParams(window.location.search);
      const q = query.get('t') || query.get('tgWebAppStartParam');
      m = q && /^t?(\d+)$/.exec(q);
      if (m) return Number(m[1]);
    } catch (e) { /* ignore */ }
    return null;
  }

  // ------------------------------------------------------------------ server API

  class FatalError extends Error {}

  async function readJson(res) {
    try { return await res.json(); } catch (e) { return {}; }
  }

  /** POST /api/session with Telegram's initData; sets app.token and the language. */
  async function newSession() {
    const initData = (app.tg && app.tg.initData) || '';
    const res = await fetch('/api/session', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ init_data: initData }),
    });
    const data = await readJson(res);
    if (res.status === 401 || res.status === 403) {
      throw new FatalError(data.error || (initData ? '' : t('openFromBot')));
    }
    if (!res.ok || !data.token) throw new Error('session ' + res.status);
    app.token = data.token;
    app.userId = data.user_id;
    if (data.lang && WORDS[data.lang]) setLang(data.lang);
    scheduleRefresh(data.expires);
    return data;
  }

  /** Renew the session a minute before it expires (acts need a valid token). */
  function scheduleRefresh(expires) {
    clearTimeout(app.refreshTimer);
    if (!expires) return;
    const ms = Math.max(10000, expires * 1000 - Date.now() - 60000);
    app.refreshTimer = setTimeout(() => {
      newSession().catch(() => { /* the next request retries */ });
    }, Math.min(ms, 2147483647));
  }

  /** A JSON request with the Bearer token; one new session and retry on 401. */
  async function api(method, path, body, retry = true) {
    const headers = { Authorization: 'Bearer ' + (app.token || '') };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store',
    });
    if (res.status === 401 && retry) {
      await newSession();
      return api(method, path, body, false);
    }
    return { status: res.status, ok: res.ok, data: await readJson(res) };
  }

  // ------------------------------------------------------------------ live connection

  /** (Re)establish everything: a session, the current state, the event stream. */
  async function boot() {
    clearTimeout(app.rebootTimer);
    if (app.stopped) return;
    try {
      await newSession();
      const res = await api('GET', `/api/tables/${app.tableId}/state`);
      if (res.status === 404) return fatal(t('notFound'));
      if (res.status === 401 || res.status === 403) return fatal(t('denied'), res.data.error);
      if (!res.ok) throw new Error('state ' + res.status);
      showSnapshot(res.data);
      connect();
    } catch (e) {
      if (e instanceof FatalError) return fatal(t('denied'), e.message);
      showConn(true);
      scheduleReboot();
    }
  }

  function scheduleReboot() {
    if (app.stopped) return;
    clearTimeout(app.rebootTimer);
    const delay = Math.min(5000, 1000 * Math.pow(2, app.retries));
    app.retries += 1;
    app.rebootTimer = setTimeout(boot, delay);
  }

  /** Open the EventSource; it reconnects by itself, and when closed we start over. */
  function connect() {
    if (app.es) app.es.close();
    const url = `/api/tables/${app.tableId}/events?token=${encodeURIComponent(app.token)}`;
    const es = new EventSource(url);
    app.es = es;
    const onState = (ev) => {
      let snap;
      try { snap = JSON.parse(ev.data); } catch (e) { return; }
      showSnapshot(snap);
    };
    es.addEventListener('state', onState);
    es.onmessage = onState;  // tolerate unnamed events
    es.onerror = () => {
      if (app.es !== es) return;
      showConn(true);
      if (es.readyState === EventSource.CLOSED) {
        es.close();
        app.es = null;
        scheduleReboot();
      }
    };
  }

  function showSnapshot(snap) {
    if (!snap || typeof snap !== 'object') return;
    if (app.snap && typeof snap.move === 'number' && snap.move < app.snap.move
        && snap.table_id === app.snap.table_id) return;
    app.retries = 0;
    showConn(false);
    render(snap);
  }

  function showConn(on) {
    const el = $('conn');
    if (on) el.textContent = t('reconnecting');
    el.hidden = !on;
  }

  function fatal(title, detail) {
    app.stopped = true;
    clearTimeout(app.rebootTimer);
    clearTimeout(app.refreshTimer);
    if (app.es) { app.es.close(); app.es = null; }
    showConn(false);
    const el = clear($('fatal'));
    el.appendChild(h('div', { class: 'fatal-box' },
      h('div', { class: 'fatal-icon', 'aria-hidden': 'true', text: title === t('denied') ? '🔒' : '🃏' }),
      h('div', { class: 'fatal-title', text: title }),
      detail ? h('div', { class: 'fatal-detail', text: detail }) : null));
    el.hidden = false;
    $('status').textContent = detail ? `${title}: ${detail}` : title;
  }

  function toast(text) {
    const el = $('toast');
    el.textContent = text || t('network');
    el.hidden = false;
    el.classList.remove('show');
    void el.offsetWidth;  // restart the fade-in
    el.classList.add('show');
    clearTimeout(app.toastTimer);
    app.toastTimer = setTimeout(() => { el.classList.remove('show'); el.hidden = true; }, 2800);
  }

  // ------------------------------------------------------------------ actions

  /** POST an act (a card or a choice) from a tapped element with data-action / data-stamp. */
  async function act(el) {
    const snap = app.snap;
    if (!snap || app.busy || app.awaiting !== null) return;
    app.busy = true;
    el.classList.add('pending');
    const body = {
      hand_index: snap.hand_index,
      stamp: Number(el.dataset.stamp),
      action: Number(el.dataset.action),
    };
    try {
      const res = await api('POST', `/api/tables/${app.tableId}/act`, body);
      answered(res, el, snap);
    } catch (e) {
      refused(el, t('network'));
    } finally {
      app.busy = false;
    }
  }

  async function nextHand(el) {
    const snap = app.snap;
    if (!snap || app.busy || app.awaiting !== null) return;
    app.busy = true;
    el.classList.add('pending');
    try {
      const res = await api('POST', `/api/tables/${app.tableId}/next`, { hand_index: snap.hand_index });
      answered(res, el, snap);
    } catch (e) {
      refused(el, t('network'));
    } finally {
      app.busy = false;
    }
  }

  function answered(res, el, snap) {
    const data = res.data || {};
    if (res.ok && data.ok) {
      haptic('light');
      // The new state comes through the stream; until then, further taps are ignored.
      if (app.snap === snap) {
        app.awaiting = snap.move;
        clearTimeout(app.awaitTimer);
        app.awaitTimer = setTimeout(() => {
          app.awaiting = null;
          el.classList.remove('pending');
        }, 4000);
      }
    } else {
      refused(el, data.text || data.error || t('network'));
    }
  }

  function refused(el, text) {
    haptic('error');
    el.classList.remove('pending');
    toast(text);
  }

  function onClick(ev) {
    const target = ev.target instanceof Element ? ev.target : null;
    if (!target) return;
    const next = target.closest('#next-hand');
    if (next) { if (!next.disabled) nextHand(next); return; }
    const el = target.closest('[data-action]');
    if (!el || el.disabled || el.classList.contains('dimmed')) return;
    act(el);
  }

  // ------------------------------------------------------------------ rendering

  function setLang(lang) {
    if (!WORDS[lang] || lang === app.lang) return;
    app.lang = lang;
    document.documentElement.lang = lang;
  }

  function seatName(snap, i) {
    const seat = snap.seats && snap.seats[i];
    return seat ? seat.name : '?';
  }

  /** Where seat i sits on screen: index 0 is the bottom, then clockwise from its left. */
  function seatPlace(snap, i) {
    const n = (snap.seats || []).length || 1;
    const base = snap.me >= 0 && snap.me < n ? snap.me : 0;
    const p = (i - base + n) % n;
    if (p === 0) return { angle: 90, p };
    // play goes counter-clockwise (RULES.md 2.5): the next seat sits on my right, the
    // others follow round the upper arc to my left (about 3 o'clock to 9 o'clock)
    const angle = 375 - ((p - 0.5) / (n - 1)) * 210;
    return { angle, p };
  }

  function polar(angle) {
    const rad = (angle * Math.PI) / 180;
    return { cos: Math.cos(rad), sin: Math.sin(rad) };
  }

  /** Render one snapshot, then publish its move number on #table[data-move]. */
  function render(snap) {
    app.snap = snap;
    app.awaiting = null;
    clearTimeout(app.awaitTimer);
    if (snap.lang && WORDS[snap.lang]) setLang(snap.lang);

    const root = $('app');
    const callGrid = (snap.choices || []).some((c) => c.kind === 'call');
    root.classList.toggle('spectating', snap.me < 0);
    root.classList.toggle('has-grid', callGrid);
    root.classList.toggle('has-choices', (snap.choices || []).length > 0);
    root.classList.toggle('has-auction', !!snap.auction);

    renderTop(snap);
    renderAuction(snap);
    renderSeats(snap);
    renderTrick(snap);
    renderDeck(snap);
    renderLastTrick(snap);
    renderResult(snap);
    renderHand(snap);
    renderChoices(snap);
    $('status').textContent = snap.message || '';

    const table = $('table');
    table.dataset.status = snap.status || '';
    table.dataset.phase = snap.phase || '';
    table.dataset.move = String(snap.move);
  }

  function renderTop(snap) {
    $('title').textContent = snap.title || 'Briscola';
    const spec = $('spectator');
    spec.hidden = snap.me >= 0;
    spec.textContent = '👁 ' + t('spectator');
    const points = $('points');
    const list = Array.isArray(snap.points) ? snap.points : [];
    clear(points);
    list.forEach((p) => {
      points.appendChild(h('span', { class: 'pt' },
        h('span', { class: 'pt-label', text: String(p.label) }),
        h('b', { text: String(p.points) })));
    });
    $('score').textContent = snap.score || '';
    $('scores').hidden = !list.length && !snap.score;
  }

  function renderAuction(snap) {
    const el = $('auction');
    const a = snap.auction;
    clear(el);
    el.hidden = !a;
    if (!a) return;
    const bids = h('div', { class: 'bids' }, h('span', { class: 'label', text: t('auction') }));
    (a.bids || []).forEach((b, k) => {
      const last = k === a.bids.length - 1;
      bids.appendChild(h('span', {
        class: 'bid-chip' + (last ? ' last' : ''), dataset: { by: String(b.seat) },
      }, h('span', { class: 'who', text: seatName(snap, b.seat) }), h('span', { class: 'what', text: String(b.label) })));
    });
    if (!(a.bids || []).length) bids.appendChild(h('span', { class: 'hint', text: t('noBids') }));
    el.appendChild(bids);

    const parts = [];
    if (a.caller >= 0) {
      parts.push(h('span', { class: 'item caller' },
        h('span', { class: 'label', text: t('caller') }), '📣', h('span', { class: 'name-text', text: seatName(snap, a.caller) })));
    }
    if (a.called) {
      parts.push(h('span', { class: 'item called' }, h('span', { class: 'label', text: t('called') }),
        cardEl(a.called, { cls: 'tiny', mini: true })));
    }
    if (a.target !== undefined && a.target !== null) {
      parts.push(h('span', { class: 'item target' },
        h('span', { class: 'label', text: t('target') }), h('b', { text: String(a.target) })));
    }
    if (a.you_are_socio) {
      parts.push(h('span', { class: 'item socio you-socio', text: '🤝 ' + t('youAreSocio') }));
    } else if (a.socio >= 0) {
      parts.push(h('span', { class: 'item socio' },
        h('span', { class: 'label', text: t('socio') }), '🤝', h('span', { class: 'name-text', text: seatName(snap, a.socio) })));
    } else if (a.alone) {
      parts.push(h('span', { class: 'item socio', text: t('alone') }));
    }
    if (parts.length) el.appendChild(h('div', { class: 'summary' }, ...parts));
    // keep the latest bid in view
    requestAnimationFrame(() => { bids.scrollLeft = bids.scrollWidth; });
  }

  function renderSeats(snap) {
    const box = clear($('seats'));
    const seats = snap.seats || [];
    const lastBid = {};
    if (snap.auction && snap.phase === 'auction') {
      (snap.auction.bids || []).forEach((b) => { lastBid[b.seat] = b.label; });
    }
    const visible = {};
    (snap.visible_hands || []).forEach((v) => { visible[v.seat] = v.cards || []; });

    seats.forEach((seat, i) => {
      const { angle, p } = seatPlace(snap, i);
      const { cos, sin } = polar(angle);
      const turn = !!seat.turn || snap.current === i;
      const cls = ['seat', p === 0 ? 'bottom' : '', turn ? 'turn' : '', seat.you || i === snap.me ? 'me' : '',
        seat.away ? 'away' : '', seat.bot ? 'bot' : '', seat.passed ? 'passed' : '', sin < -0.6 ? 'top' : '']
        .filter(Boolean).join(' ');
      const el = h('div', { class: cls, dataset: { seat: String(i) } });
      if (p === 0) {
        el.style.left = '50%';
        el.style.top = 'calc(100% - 21px)';
      } else {
        el.style.left = `calc(50% + ${cos.toFixed(4)} * (50% - 46px))`;
        el.style.top = `calc(53% + ${sin.toFixed(4)} * (53% - 22px))`;
      }

      const name = h('div', { class: 'name' });
      if (turn) name.appendChild(h('span', { class: 'turn-mark', 'aria-label': t('turn'), text: '▶' }));
      name.appendChild(h('span', { class: 'name-text', text: seat.name }));
      if (seat.you || i === snap.me) name.appendChild(h('span', { class: 'you', text: `(${t('you')})` }));
      el.appendChild(name);

      const tags = h('div', { class: 'tags' });
      if (seat.dealer) tags.appendChild(h('span', { class: 'chip dealer', title: t('dealer'), text: t('dealerShort') }));
      if (seat.team) tags.appendChild(h('span', { class: 'chip team', title: t('team') + ' ' + seat.team, text: String(seat.team) }));
      if (snap.phase) {
        tags.appendChild(h('span', { class: 'ncards', title: `${seat.cards} ${t('cards')}` },
          h('span', { class: 'mini-back', 'aria-hidden': 'true' }), String(seat.cards ?? 0)));
      }
      if (seat.caller) tags.appendChild(h('span', { class: 'flag caller', title: t('caller'), text: '📣' }));
      if (seat.socio) tags.appendChild(h('span', { class: 'flag socio', title: t('socio'), text: '🤝' }));
      if (seat.passed) tags.appendChild(h('span', { class: 'flag passed', title: t('passed'), text: '✖️' }));
      if (seat.bot) tags.appendChild(h('span', { class: 'flag bot', title: t('computer'), text: '🤖' }));
      if (seat.away) tags.appendChild(h('span', { class: 'flag away', title: t('away'), text: '💤' }));
      el.appendChild(tags);

      if (lastBid[i] !== undefined) {
        el.appendChild(h('div', { class: 'bubble' + (seat.passed ? ' pass' : ''), text: String(lastBid[i]) }));
      }
      if (visible[i] && visible[i].length) {
        const row = h('div', { class: 'visible-hand' });
        visible[i].forEach((c) => row.appendChild(cardEl(c, { mini: true, cls: 'micro' })));
        el.appendChild(row);
      }
      box.appendChild(el);
    });
  }

  function renderTrick(snap) {
    const el = clear($('trick'));
    el.setAttribute('aria-label', t('trick'));
    const n = (snap.seats || []).length || 1;
    const many = n >= 4;
    el.classList.toggle('many', many);
    // the cards lie on an inner ellipse
    const rx = many ? 'clamp(30px, 50% - 116px, 110px)' : 'clamp(40px, 50% - 100px, 120px)';
    const ry = many ? 'clamp(30px, 50% - 90px, 130px)' : 'clamp(34px, 50% - 80px, 130px)';
    (snap.trick || []).forEach((play, k) => {
      // evenly around the centre, in the order of the seats: each card lies on its player's side
      const { p } = seatPlace(snap, play.seat);
      const { cos, sin } = polar(90 + (p * 360) / n);
      const card = cardEl(play.card, { cls: 'trick-card' });
      card.dataset.by = String(play.seat);
      card.setAttribute('aria-label', `${seatName(snap, play.seat)}: ${play.card.name}`);
      const tilt = ((play.card.id * 37) % 11) - 5;
      card.style.left = `calc(50% + ${cos.toFixed(4)} * ${rx})`;
      card.style.top = `calc(50% + ${sin.toFixed(4)} * ${ry})`;
      card.style.transform = `translate(-50%, -50%) rotate(${tilt}deg)`;
      card.style.zIndex = String(10 + k);
      el.appendChild(card);
    });
  }

  function renderDeck(snap) {
    const deck = $('deck');
    const bris = clear($('briscola'));
    const talon = $('talon');
    const caption = $('deck-caption');
    const inHand = !!snap.phase;
    deck.hidden = !inHand || (!snap.briscola && !snap.turned && !(snap.talon > 0));

    // the briscola: the turned card, or the suit alone once it is taken or when it is named
    bris.className = '';
    bris.removeAttribute('role');
    bris.removeAttribute('aria-label');
    if (snap.turned) {
      bris.className = 'turned';
      bris.appendChild(cardEl(snap.turned, { cls: 'briscola-card' }));
      bris.hidden = false;
    } else if (snap.briscola) {
      bris.className = 'suit-only';
      bris.setAttribute('role', 'img');
      bris.setAttribute('aria-label', `${t('briscola')}: ${snap.briscola.name}`);
      bris.appendChild(suitIcon(snap.briscola.suit, !!snap.french));
      bris.hidden = false;
    } else {
      bris.hidden = true;
    }

    // the tallone: a face-down stack (or the next card face up) with its count
    clear(talon);
    const count = Number(snap.talon) || 0;
    talon.hidden = count <= 0;
    talon.setAttribute('aria-label', `${t('talon')}: ${count}`);
    talon.title = `${t('talon')}: ${count}`;
    if (count > 1) talon.appendChild(backEl('stack-under'));
    talon.appendChild(snap.talon_next ? cardEl(snap.talon_next, { cls: 'talon-next' }) : backEl('stack-top'));
    talon.appendChild(h('span', { class: 'count', text: String(count) }));
    talon.classList.toggle('has-briscola', !!snap.turned);

    caption.textContent = snap.briscola ? `${t('briscola')}: ${snap.briscola.name}` : t('briscola');
    deck.classList.toggle('no-talon', count <= 0);
  }

  function renderLastTrick(snap) {
    const el = clear($('last-trick'));
    const last = snap.last_trick;
    el.hidden = !last || !(last.plays || []).length;
    if (el.hidden) return;
    el.appendChild(h('div', { class: 'caption', text: t('lastTrick') }));
    const row = h('div', { class: 'cards' });
    last.plays.forEach((play) => {
      const c = cardEl(play.card, { mini: true, cls: 'small' + (play.seat === last.winner ? ' won' : '') });
      c.dataset.by = String(play.seat);
      c.setAttribute('aria-label', `${seatName(snap, play.seat)}: ${play.card.name}`);
      row.appendChild(c);
    });
    el.appendChild(row);
    if (last.winner >= 0) {
      const pts = last.points === null || last.points === undefined ? '' : ` +${last.points}`;
      el.appendChild(h('div', { class: 'winner' }, h('span', { class: 'name-text', text: seatName(snap, last.winner) }),
        h('b', { text: pts })));
    }
  }

  function renderResult(snap) {
    const el = clear($('result'));
    const lines = Array.isArray(snap.result) ? snap.result : [];
    const show = lines.length > 0 || !!snap.can_next;
    el.hidden = !show;
    if (!show) return;
    const box = h('div', { class: 'result-box' });
    lines.forEach((line, k) => box.appendChild(h('p', { class: k === 0 ? 'headline' : '', text: String(line) })));
    if (snap.can_next) {
      box.appendChild(h('button', { type: 'button', id: 'next-hand', class: 'primary', text: t('nextHand') }));
    }
    el.appendChild(box);
  }

  function renderHand(snap) {
    const el = clear($('hand'));
    el.setAttribute('aria-label', t('hand'));
    const spectator = snap.me < 0;
    const cards = snap.hand || [];
    el.hidden = spectator || !snap.phase || (!cards.length && !(snap.blind > 0));
    if (el.hidden) return;
    const playable = new Set(snap.playable || []);
    el.classList.toggle('idle', playable.size === 0);
    cards.forEach((card) => {
      const ok = playable.has(card.id);
      const btn = cardEl(card, { button: true, cls: ok ? 'playable' : 'dimmed' });
      if (ok) {
        btn.dataset.action = String(card.id);
        btn.dataset.stamp = String(snap.card_stamp);
      } else {
        btn.disabled = true;
        btn.setAttribute('aria-disabled', 'true');
      }
      el.appendChild(h('div', { class: 'slot' }, btn));
    });
    if (!cards.length && snap.blind > 0) {
      for (let k = 0; k < snap.blind; k++) el.appendChild(h('div', { class: 'slot' }, backEl('blind')));
    }
    el.classList.toggle('many', cards.length > 5 || snap.blind > 5);
  }

  function renderChoices(snap) {
    const el = clear($('choices'));
    const choices = snap.me >= 0 ? snap.choices || [] : [];
    el.hidden = !choices.length;
    el.setAttribute('aria-label', t('choices'));
    if (!choices.length) return;
    const french = !!snap.french;

    const calls = choices.filter((c) => c.kind === 'call' && c.card);
    const others = choices.filter((c) => !(c.kind === 'call' && c.card));

    if (others.length) {
      const allSuits = others.every((c) => c.kind === 'suit');
      const dense = !allSuits && others.length > 5;
      const row = h('div', { class: 'choice-row' + (allSuits ? ' suits' : '') + (dense ? ' dense' : '') });
      others.forEach((c) => row.appendChild(choiceButton(c, french)));
      el.appendChild(row);
    }
    if (calls.length) {
      const grid = h('div', { class: 'call-grid' });
      const bySuit = new Map();
      calls.forEach((c) => {
        if (!bySuit.has(c.card.s)) bySuit.set(c.card.s, []);
        bySuit.get(c.card.s).push(c);
      });
      [...bySuit.keys()].sort((a, b) => a - b).forEach((suit) => {
        const row = h('div', { class: 'call-row', dataset: { suit: String(suit) } });
        bySuit.get(suit).forEach((c) => {
          const btn = cardEl(c.card, { button: true, mini: true, cls: 'choice call' });
          btn.dataset.action = String(c.action);
          btn.dataset.stamp = String(c.stamp);
          btn.dataset.kind = 'call';
          if (c.label) btn.title = c.label;
          row.appendChild(btn);
        });
        grid.appendChild(row);
      });
      el.appendChild(grid);
    }
  }

  function choiceButton(c, french) {
    const kind = c.kind || 'bid';
    const btn = h('button', {
      type: 'button', class: `choice kind-${kind}`,
      dataset: { action: String(c.action), stamp: String(c.stamp), kind },
    });
    if (kind === 'suit' && c.card) {
      btn.appendChild(suitIcon(c.card.s, french));
    } else if (kind === 'suit' && typeof c.suit === 'number') {
      btn.appendChild(suitIcon(c.suit, french));
    } else if (kind === 'blind') {
      btn.appendChild(h('span', { class: 'blind-back', 'aria-hidden': 'true' }, backSvg()));
    } else if (c.card) {
      btn.appendChild(cardEl(c.card, { mini: true, cls: 'tiny' }));
    }
    btn.appendChild(h('span', { class: 'choice-label', text: String(c.label ?? '') }));
    return btn;
  }

  // ------------------------------------------------------------------ start

  function start() {
    initTelegram();
    $('conn').textContent = t('reconnecting');
    document.addEventListener('click', onClick);
    app.tableId = tableIdFromLaunch();
    if (app.tableId === null) {
      fatal(t('notFound'), t('openFromBot'));
      return;
    }
    $('title').textContent = t('loading');
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible' && !app.stopped && !app.es) boot();
    });
    boot();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
