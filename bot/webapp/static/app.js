/* Briscola — Telegram Mini App front end.
 *
 * One table, live through Server-Sent Events; a seated player plays by tapping.
 * Plain ES2020, no build step. Every text that comes from the server (names, labels,
 * messages, result lines) is inserted as text (textContent / createTextNode), never as HTML.
 * The only global is `window.BriscolaApp` (the `app` object below), for debugging and tests.
 *
 * Taps mean what the finger meant: a control acts only if it was under the finger at
 * pointer-down, for the turn it was shown for, and only once it has been on screen for
 * ARM_MS (a double tap's second tap cannot land on the next turn's controls); the request
 * names the ply it was made on, and the server refuses it quietly once the table moved on.
 * After an accepted tap everything is inert until a later turn is shown and the completed
 * trick's pause (snapshot.trick_ms) has ended.
 *
 * A tap that comes too early is not lost (issue 52): one made while a completed trick is on
 * show, or on the viewer's turn before its controls answer, waits in a queue ("in coda" on
 * the card) and acts as soon as it can, once, if it is then the viewer's turn and the move
 * is still theirs to make; else the page says why it was not made. Any other tap that
 * cannot act says why at once ("not your turn"). The second tap of a double tap (DOUBLE_MS
 * after the first) is the first tap's, and does nothing.
 *
 * Seats and trick cards share one geometry (`layout`): each trick card lies on the line from
 * the table's centre to its player's seat, nearer that seat than any other. It is measured
 * on the felt as the controls around it left it (they are drawn first), and again whenever
 * the felt changes size between renders (a ResizeObserver).
 */
'use strict';

(() => {
  // ------------------------------------------------------------------ state

  const ARM_MS = 500;          // a turn's controls answer taps this long after they appear
  const DOUBLE_MS = 600;       // a tap this soon after one that acted is a double tap's second
  const QUEUE_MS = 5000;       // a tap waits in the queue this long at most

  const app = {
    tg: null,            // window.Telegram.WebApp, or null outside Telegram
    lang: 'it',
    tableId: null,
    key: '',             // the table's key, from the start parameter t<id>_<key>
    token: null,
    tokenExpires: 0,     // unix seconds
    userId: null,
    pageId: '',          // this page's name for itself (visibility reports)
    reports: 0,          // visibility reports numbered so far (the server keeps the newest)
    snap: null,          // the snapshot on screen
    es: null,            // the EventSource
    connected: false,    // the stream is open and a snapshot came through it
    retries: 0,
    rebootTimer: null,
    refreshTimer: null,
    toastTimer: null,
    heartbeat: null,     // the timer of the visibility reports (the server says how often)
    heartbeatMs: 0,
    sent: null,          // {hand, ply}: the move sent, until a later ply is shown
    sentTimer: null,
    turnKey: '',         // hand:ply:move of the controls on screen
    armedAt: 0,          // performance.now() from which they answer taps
    armTimer: null,
    down: null,          // {el, key, armed, want, at}: what was under the finger at pointer-down
    lastTap: -Infinity,  // performance.now() of the last tap that acted or was queued
    queued: null,        // {action, table, hand, at}: a tap made too early, acted on when it can
    queueTimer: null,
    pause: null,         // {until, trick, timer}: a completed trick on show
    bid: null,           // {key, value}: the overbid being chosen
    callSuit: null,      // the suit whose cards the call grid shows
    quiet: '',           // a quiet status line ("already played"), until the next snapshot
    stopped: false,
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
      choices: 'Scelte', takes: 'prende', points: 'Punti', turn: 'di turno',
      noBids: 'nessuna offerta', hidden: 'Carta coperta', trick: 'Presa in corso',
      openFromBot: 'Apri il tavolo dal bot su Telegram.', result: 'Risultato',
      score: 'Punteggio', close: 'Chiudi', player: 'Giocatore', side: 'Squadra',
      role: 'Ruolo', delta: '±', handsWon: 'Mani vinte', matchPoints: 'Punti partita',
      matchScore: 'Punteggio', handPoints: 'Punti mano', total: 'Tot.', upTo: 'a', other: '—',
      rematch: 'Rivincita', toRematch: 'Vai alla rivincita', start: 'Inizia la partita',
      movedOn: 'Già giocato: ecco il tavolo com\'è ora.', bidLess: 'Meno', bidMore: 'Più',
      bidMore5: 'Più cinque', bidValue: 'Offerta', chooseSuit: 'Seme', won: 'vinta',
      hands: 'mani', matchOf: 'Partita', tricks: 'prese', scoreChip: 'punti', reopen: 'Sessione scaduta: riapri il tavolo da Telegram.',
      queued: 'in coda', queuedNote: 'In coda: si gioca appena tocca a te.',
      notYourTurn: 'Non è il tuo turno.', chooseFirst: 'Prima scegli qui sopra.',
      notPlayed: 'Non giocata: ora non tocca a te.',
    },
    en: {
      talon: 'Talon', lastTrick: 'Last trick', briscola: 'Briscola', auction: 'Auction',
      caller: 'Caller', socio: 'Partner', target: 'Target', called: 'Called',
      nextHand: 'Next hand', spectator: 'Spectator', reconnecting: 'Reconnecting…',
      notFound: 'Table not found', denied: 'Access denied', youAreSocio: 'You are the partner',
      alone: 'alone', dealer: 'Dealer', dealerShort: 'D', cards: 'cards', you: 'you',
      away: 'away', computer: 'computer', passed: 'passed', team: 'Team',
      loading: 'Loading…', network: 'Network error', hand: 'Your hand',
      choices: 'Choices', takes: 'takes', points: 'Points', turn: 'to play',
      noBids: 'no bids yet', hidden: 'Face-down card', trick: 'Current trick',
      openFromBot: 'Open the table from the bot in Telegram.', result: 'Result',
      score: 'Score', close: 'Close', player: 'Player', side: 'Side',
      role: 'Role', delta: '±', handsWon: 'Hands won', matchPoints: 'Match points',
      matchScore: 'Score', handPoints: 'Hand points', total: 'Total', upTo: 'to', other: '—',
      rematch: 'Rematch', toRematch: 'Go to the rematch', start: 'Start the match',
      movedOn: 'Already played: this is the table now.', bidLess: 'Less', bidMore: 'More',
      bidMore5: 'Five more', bidValue: 'Bid', chooseSuit: 'Suit', won: 'won',
      hands: 'hands', matchOf: 'Match', tricks: 'tricks', scoreChip: 'score', reopen: 'Session expired: open the table again from Telegram.',
      queued: 'queued', queuedNote: 'Queued: it goes as soon as it is your turn.',
      notYourTurn: 'It is not your turn.', chooseFirst: 'Choose above first.',
      notPlayed: 'Not played: it is not your turn now.',
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

  const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0');

  // ------------------------------------------------------------------ colours (WCAG AA)

  function parseColor(text) {
    const c = String(text || '').trim();
    let m = /^#([0-9a-f]{3,8})$/i.exec(c);
    if (m) {
      let x = m[1];
      if (x.length <= 4) x = x.split('').map((d) => d + d).join('');
      return [0, 2, 4].map((i) => parseInt(x.slice(i, i + 2), 16));
    }
    m = /^rgba?\(([^)]+)\)$/i.exec(c);
    if (m) return m[1].split(',').slice(0, 3).map((v) => Math.round(parseFloat(v)));
    return null;
  }

  function luminance(rgb) {
    const [r, g, b] = rgb.map((v) => {
      const x = v / 255;
      return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  }

  function contrast(a, b) {
    const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  }

  const mix = (a, b, k) => a.map((v, i) => Math.round(v + (b[i] - v) * k));
  const hex = (rgb) => '#' + rgb.map((v) => v.toString(16).padStart(2, '0')).join('');

  /** `fg` moved towards `to` just enough to read at 4.5:1 on every one of `bgs`. */
  function readable(fg, bgs, to) {
    for (let k = 0; k <= 1.0001; k += 0.05) {
      const c = mix(fg, to, k);
      if (bgs.every((bg) => contrast(c, bg) >= 4.5)) return c;
    }
    return to;
  }

  /** Telegram's theme, made readable: hint text and button labels reach 4.5:1 (a theme's
   * own hint colour is often 2-3:1 on its background). */
  function applyTheme() {
    const tg = app.tg;
    const params = (tg && tg.themeParams) || {};
    const root = document.documentElement;
    const style = root.style;
    for (const [key, value] of Object.entries(params)) {
      if (typeof value === 'string' && /^#[0-9a-f]{3,8}$|^rgba?\(/i.test(value)) {
        style.setProperty('--tg-theme-' + key.replace(/_/g, '-'), value);
      }
    }
    if (tg && tg.colorScheme) root.dataset.scheme = tg.colorScheme;
    const css = getComputedStyle(root);
    const get = (name) => parseColor(css.getPropertyValue(name));
    const bg = get('--bg');
    const panel = get('--panel');
    const text = get('--text');
    const hint = get('--hint');
    const button = get('--button');
    const buttonText = get('--button-text');
    if (!bg || !text) return;
    const bgs = [bg, panel || bg];
    style.setProperty('--text-aa', hex(readable(text, bgs, luminance(bg) > 0.4 ? [0, 0, 0] : [255, 255, 255])));
    if (hint) style.setProperty('--hint-aa', hex(readable(hint, bgs, text)));
    if (button && buttonText) {
      const away = luminance(buttonText) > 0.4 ? [0, 0, 0] : [255, 255, 255];
      let b = button;
      for (let k = 0.05; contrast(b, buttonText) < 4.5 && k <= 1; k += 0.05) b = mix(button, away, k);
      style.setProperty('--button-aa', hex(b));
      style.setProperty('--button-text-aa', hex(contrast(b, buttonText) >= 4.5 ? buttonText : away.map((v) => 255 - v)));
    }
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

  // the suit's ink on a card face (#fffdf8): each at least 4.5:1 for the rank letters
  const SUIT_COLORS_IT = ['#8a5300', '#b71c1c', '#1a4f94', '#27622c'];
  const SUIT_COLORS_FR = ['#c62828', '#c62828', '#1a1a1a', '#1a1a1a'];

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

  // The figures, drawn in the suit's ink in a 100×100 box: a crown for the king (Re), a
  // tiara for the queen, a horse's head for the knight (Cavallo), a page in a feathered cap
  // for the jack (Fante).
  const FIGURE_PATHS = {
    king: [
      'M14 74 L18 30 L34 50 L50 20 L66 50 L82 30 L86 74 Z',
      'M12 76 H88 V90 H12 Z',
    ],
    queen: [
      'M20 74 C22 52 30 40 50 30 C70 40 78 52 80 74 Z',
      'M16 76 H84 V88 H16 Z',
    ],
    knight: [
      'M28 92 L30 72 C30 62 36 56 40 50 C34 51 25 53 20 47 C17 42 22 36 30 32 C38 27 42 18 51 14 L54 4 L61 14 C74 19 83 33 81 52 C80 66 73 77 73 92 Z',
    ],
    jack: [
      'M22 94 C22 72 34 62 50 62 C66 62 78 72 78 94 Z',
      'M36 42 A14 14 0 1 0 64 42 A14 14 0 1 0 36 42 Z',
      'M32 34 C34 18 66 18 68 34 Z',
      'M62 26 C70 12 82 8 90 6 C86 16 76 26 66 31 Z',
    ],
  };

  function figure(kind, color) {
    const paths = FIGURE_PATHS[kind] || FIGURE_PATHS.king;
    const kids = paths.map((d, i) => s('path', {
      d, fill: i === 0 ? color : '#fffdf8', stroke: color, 'stroke-width': 5, 'stroke-linejoin': 'round',
    }));
    if (kind === 'knight') kids.push(s('circle', { cx: 58, cy: 30, r: 4, fill: '#fffdf8' }));
    if (kind === 'king') {
      for (const x of [18, 50, 82]) kids.push(s('circle', { cx: x, cy: x === 50 ? 18 : 28, r: 5, fill: color }));
    }
    if (kind === 'jack') kids[1].setAttribute('fill', color);
    return kids;
  }

  /**
   * A card face as an <svg> (viewBox 60×90): a white rounded card, a large rank in the top
   * corner (readable when the card lies under another), the suit below it, and in the middle
   * the suit symbol or, for a face card, its figure. `mini` draws the rank and the symbol
   * only, large, for small sizes.
   */
  function cardSvg(card, french, mini) {
    const color = suitColor(card.s, french);
    const rank = String(card.r === undefined || card.r === null ? '' : card.r);
    const font = 'system-ui, -apple-system, Segoe UI, Roboto, Arial, sans-serif';
    const kids = [
      s('rect', { x: 0.75, y: 0.75, width: 58.5, height: 88.5, rx: 6, fill: '#fffdf8', stroke: '#6b7079', 'stroke-width': 1.5 }),
    ];
    const text = (x, y, size, value, anchor) => {
      const el = s('text', {
        x, y, 'font-size': size, 'font-weight': 800, fill: color, 'font-family': font,
        'text-anchor': anchor || 'start', 'letter-spacing': -0.5,
      });
      el.textContent = value;
      return el;
    };
    if (mini) {
      kids.push(text(30, 34, rank.length > 1 ? 26 : 32, rank, 'middle'));
      kids.push(placedGlyph(card.s, french, 14, 44, 32));
    } else {
      const size = rank.length > 1 ? 19 : 23;
      kids.push(text(4, 22, size, rank));
      kids.push(placedGlyph(card.s, french, 4.5, 26, 13));
      if (card.f) {
        kids.push(s('g', { transform: 'translate(17 30) scale(0.38)' }, figure(card.f, color)));
      } else {
        kids.push(placedGlyph(card.s, french, 16, 33, 34));
      }
      const low = text(0, 0, size, rank);
      kids.push(s('g', { transform: 'rotate(180 30 45)' }, [low]));
      low.setAttribute('x', 4);
      low.setAttribute('y', 22);
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
      s('rect', { x: 0.75, y: 0.75, width: 58.5, height: 88.5, rx: 6, fill: '#fdfdfd', stroke: '#6b7079', 'stroke-width': 1.5 }),
      s('rect', { x: 5, y: 5, width: 50, height: 80, rx: 3.5, fill: '#1d4f91' }),
      s('path', { d: lattice, fill: '#ffffff', 'fill-opacity': 0.22 }),
      s('rect', { x: 8, y: 8, width: 44, height: 74, rx: 2.5, fill: 'none', stroke: '#f3c54b', 'stroke-width': 1.2 }),
      s('ellipse', { cx: 30, cy: 45, rx: 10, ry: 14, fill: '#c62828', stroke: '#f3c54b', 'stroke-width': 2 }),
    ]);
  }

  /** A card element (div with role=img, or a button) carrying data-card and aria-label. */
  function cardEl(card, opts = {}) {
    const french = opts.french !== undefined ? !!opts.french : !!(app.snap && app.snap.french);
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

  function backEl(cls, label, button) {
    const el = button
      ? h('button', { type: 'button', class: 'card back-card' + (cls ? ' ' + cls : ''), 'aria-label': label || t('hidden') })
      : h('div', { class: 'card back-card' + (cls ? ' ' + cls : ''), role: 'img', 'aria-label': label || t('hidden') });
    el.appendChild(backSvg());
    return el;
  }

  // ------------------------------------------------------------------ Telegram

  function initTelegram() {
    const tg = window.Telegram && window.Telegram.WebApp;
    app.tg = tg || null;
    if (tg) {
      const call = (name, ...args) => {
        try { if (typeof tg[name] === 'function') tg[name](...args); } catch (e) { /* older client */ }
      };
      call('ready');
      call('expand');
      const modern = typeof tg.isVersionAtLeast !== 'function' || tg.isVersionAtLeast('7.7');
      if (modern) call('disableVerticalSwipes');
      try {
        if (typeof tg.onEvent === 'function') {
          tg.onEvent('themeChanged', () => { applyTheme(); if (app.snap) render(app.snap); });
          // minimised in Telegram (Bot API 8.0): not visible, though the page may run on
          tg.onEvent('activated', onVisibility);
          tg.onEvent('deactivated', onVisibility);
        }
      } catch (e) { /* ignore */ }
    }
    applyTheme();
  }

  function haptic(kind) {
    try {
      const hf = app.tg && app.tg.HapticFeedback;
      if (!hf) return;
      if (kind === 'error') { if (typeof hf.notificationOccurred === 'function') hf.notificationOccurred('error'); }
      else if (kind === 'select') { if (typeof hf.selectionChanged === 'function') hf.selectionChanged(); }
      else if (typeof hf.impactOccurred === 'function') hf.impactOccurred('light');
    } catch (e) { /* older client */ }
  }

  /** The table (and its key) from the start parameter (`t123_<key>`) or the page's `?t=`;
   * a finished hand's replay (`h4_t123_<key>`: the hand's index first) also names the hand. */
  function launchParam() {
    const found = [];
    try {
      const unsafe = app.tg && app.tg.initDataUnsafe;
      if (unsafe && unsafe.start_param) found.push(String(unsafe.start_param));
    } catch (e) { /* ignore */ }
    try {
      const query = new URLSearchParams(window.location.search);
      for (const name of ['tgWebAppStartParam', 't']) if (query.get(name)) found.push(query.get(name));
    } catch (e) { /* ignore */ }
    for (const p of found) {
      const r = /^h(\d{1,6})_t(\d{1,18})(?:_([A-Za-z0-9_-]{1,64}))?$/.exec(p);
      if (r) return { id: Number(r[2]), key: r[3] || '', hand: Number(r[1]) };
      const m = /^t?(\d{1,18})(?:_([A-Za-z0-9_-]{1,64}))?$/.exec(p);
      if (m) return { id: Number(m[1]), key: m[2] || '' };
    }
    return null;
  }

  // ------------------------------------------------------------------ server API

  class FatalError extends Error {}

  async function readJson(res) {
    try { return await res.json(); } catch (e) { return {}; }
  }

  function tookSession(data) {
    const beat = Number(data.heartbeat) * 1000;
    if (beat > 0 && beat !== app.heartbeatMs) {
      app.heartbeatMs = beat;
      clearInterval(app.heartbeat);
      app.heartbeat = setInterval(() => { if (app.es && isVisible()) reportVisibility(false); }, beat);
    }
    app.token = data.token;
    app.tokenExpires = Number(data.expires) || 0;
    app.userId = data.user_id;
    if (data.lang && WORDS[data.lang]) setLang(data.lang);
    scheduleRefresh(app.tokenExpires);
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
    if (res.status === 401 || res.status === 403 || res.status === 400) {
      throw new FatalError(data.reason === 'stale auth_date' ? t('reopen') : (data.error && initData ? data.error : t('openFromBot')));
    }
    if (!res.ok || !data.token) throw new Error('session ' + res.status);
    tookSession(data);
    return data;
  }

  /** The session kept: the token renewed with itself, else a new session. */
  async function renewSession() {
    if (app.token) {
      try {
        const res = await fetch('/api/session/renew', {
          method: 'POST', headers: { Authorization: 'Bearer ' + app.token }, cache: 'no-store',
        });
        if (res.ok) {
          tookSession(await readJson(res));
          return;
        }
      } catch (e) { /* the network: a new session below, or the next attempt */ }
    }
    await newSession();
  }

  function scheduleRefresh(expires) {
    clearTimeout(app.refreshTimer);
    if (!expires) return;
    const ms = Math.max(10000, expires * 1000 - Date.now() - 120000);
    app.refreshTimer = setTimeout(() => {
      renewSession().catch(() => { /* the next request retries */ });
    }, Math.min(ms, 2147483647));
  }

  const tablePath = (what) => `/api/tables/${app.tableId}/${what}`;

  /** A JSON request with the Bearer token and the table's key; one renewal and retry on 401. */
  async function api(method, path, body, retry = true) {
    const headers = { Authorization: 'Bearer ' + (app.token || '') };
    if (app.key) headers['X-Table-Key'] = app.key;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store',
    });
    if (res.status === 401 && retry) {
      await renewSession();
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
      if (!app.token || app.tokenExpires * 1000 < Date.now() + 60000) await renewSession();
      const res = await api('GET', tablePath('state'));
      if (res.status === 404) return fatal(t('notFound'));
      if (res.status === 403) return fatal(t('denied'), t('openFromBot'));
      if (res.status === 401) return fatal(t('denied'), res.data.error);
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

  function isVisible() {
    if (document.visibilityState !== 'visible') return false;
    return !(app.tg && app.tg.isActive === false);
  }

  /** Open the EventSource; it reconnects by itself, and when closed we start over. */
  function connect() {
    if (app.es) app.es.close();
    const query = new URLSearchParams({
      token: app.token || '', page: app.pageId, visible: isVisible() ? '1' : '0',
      seq: String(++app.reports),
    });
    if (app.key) query.set('k', app.key);
    const es = new EventSource(`${tablePath('events')}?${query}`);
    app.es = es;
    const onState = (ev) => {
      let snap;
      try { snap = JSON.parse(ev.data); } catch (e) { return; }
      app.connected = true;
      showSnapshot(snap);
    };
    es.addEventListener('state', onState);
    es.onmessage = onState;  // tolerate unnamed events
    es.onopen = () => reportVisibility();  // a stream opened again: say how things are now
    es.onerror = () => {
      if (app.es !== es) return;
      app.connected = false;
      showConn(true);
      if (app.snap) render(app.snap);  // nothing glows playable while the bot is away
      if (es.readyState === EventSource.CLOSED) {
        es.close();
        app.es = null;
        scheduleReboot();
      }
    };
  }

  /** Tell the server whether this page is visible (issue 39: it then spares the chat). */
  function reportVisibility(leaving) {
    if (!app.token || app.tableId === null || !app.pageId) return;
    const visible = !leaving && isVisible();
    const body = JSON.stringify({ page: app.pageId, visible, token: app.token, seq: ++app.reports });
    const url = tablePath('visibility');
    if (leaving && navigator.sendBeacon) {
      navigator.sendBeacon(url, new Blob([body], { type: 'text/plain' }));
      return;
    }
    fetch(url, { method: 'POST', body, keepalive: true, headers: { 'Content-Type': 'text/plain' } })
      .catch(() => { /* the stream's end says it too */ });
  }

  function onVisibility() {
    reportVisibility(false);
    if (isVisible() && !app.stopped && !app.es) boot();
  }

  function showSnapshot(snap) {
    if (!snap || typeof snap !== 'object') return;
    if (app.snap && typeof snap.move === 'number' && snap.move < app.snap.move
        && snap.table_id === app.snap.table_id) return;
    app.retries = 0;
    showConn(false);
    const prev = app.snap && app.snap.table_id === snap.table_id ? app.snap : null;
    // a completed trick: shown with its winner for trick_ms before it goes to them
    if (prev && snap.last_trick && snap.hand_index === prev.hand_index
        && snap.tricks_done > prev.tricks_done) {
      startPause(snap);
    }
    if (app.sent && (snap.hand_index !== app.sent.hand || snap.ply > app.sent.ply)) {
      app.sent = null;
      clearTimeout(app.sentTimer);
    }
    app.quiet = '';
    render(snap);
  }

  function startPause(snap) {
    if (app.pause) clearTimeout(app.pause.timer);
    const ms = Number(snap.trick_ms) || 1200;
    app.pause = {
      until: performance.now() + ms,
      trick: snap.last_trick,
      key: `${snap.hand_index}:${snap.tricks_done}`,
      timer: setTimeout(endPause, ms),
    };
  }

  function endPause() {
    const pause = app.pause;
    if (!pause) return;
    const done = () => {
      if (app.pause === pause) app.pause = null;
      if (app.snap) render(app.snap);
    };
    // the cards go to the winner
    const box = $('trick');
    const target = app.geometry && app.geometry.seats[pause.trick.winner];
    const cards = [...box.querySelectorAll('.trick-card')];
    if (!target || !cards.length || typeof cards[0].animate !== 'function') return done();
    let left = cards.length;
    cards.forEach((el) => {
      const x = target.x - parseFloat(el.style.left);
      const y = target.y - parseFloat(el.style.top);
      const anim = el.animate([
        { transform: el.style.transform, opacity: 1 },
        { transform: `translate(calc(-50% + ${x}px), calc(-50% + ${y}px)) scale(0.4)`, opacity: 0 },
      ], { duration: 260, easing: 'ease-in', fill: 'forwards' });
      anim.onfinish = () => { left -= 1; if (!left) done(); };
    });
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
    clearInterval(app.heartbeat);
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

  // ------------------------------------------------------------------ taps

  /** Whether the viewer's controls answer taps now (their turn is shown, armed, no pause,
   * no move of theirs on its way, the bot reachable). */
  function live() {
    const snap = app.snap;
    if (!snap || snap.me < 0 || app.stopped || !app.connected) return false;
    if (app.pause || app.sent) return false;
    return performance.now() >= app.armedAt;
  }

  // what a tap may act on: a move (data-action), a command (data-cmd), any card of the hand
  const TAPPABLE = '[data-action], [data-cmd], #hand .card';

  function onPointerDown(ev) {
    const target = ev.target instanceof Element ? ev.target : null;
    const el = target && target.closest(TAPPABLE);
    app.down = el ? {
      el, key: app.turnKey, armed: el.dataset.cmd ? true : live(), want: el.dataset.want, at: performance.now(),
    } : null;
  }

  function onClick(ev) {
    const target = ev.target instanceof Element ? ev.target : null;
    if (!target) return;
    const el = target.closest(TAPPABLE);
    if (!el || el.disabled) return;
    const down = app.down;
    app.down = null;
    // a pointer's click acts on what was under the finger at pointer-down, for that turn;
    // a keyboard's click (detail 0) has no pointer-down
    const keyboard = ev.detail === 0;
    const fresh = keyboard || (!!down && down.el === el && down.key === app.turnKey);
    const cmd = el.dataset.cmd;
    if (cmd) return fresh ? command(cmd, el) : undefined;
    // the same card of the hand, drawn again under the finger (a new state came meanwhile)
    const same = fresh || (!!down && down.want !== undefined && down.want === el.dataset.want);
    if (!same) return;
    const at = keyboard ? performance.now() : down.at;
    if (at - app.lastTap < DOUBLE_MS) return;  // a double tap's second: the first one counts
    if (fresh && el.dataset.action !== undefined && (keyboard || down.armed) && live()) {
      app.lastTap = at;
      return act(el);
    }
    early(el, at);
  }

  /** A tap that cannot act now: queued while a trick is on show or the viewer's turn is being
   * drawn, else answered with why not (issue 52: no tap vanishes without a word). */
  function early(el, at) {
    const snap = app.snap;
    // offline: the banner says so; a move on its way: its card is lifted
    if (!snap || snap.me < 0 || app.stopped || !app.connected || app.sent) return;
    const action = Number(el.dataset.action !== undefined ? el.dataset.action : el.dataset.want);
    if (!Number.isInteger(action)) return;
    const mine = (snap.playable || []).includes(action)
      || (snap.choices || []).some((c) => c.action === action);
    if (app.pause || (mine && performance.now() < app.armedAt)) {
      app.lastTap = at;
      if (app.queued && app.queued.action === action) return;
      app.queued = { action, table: snap.table_id, hand: snap.hand_index, at: performance.now() };
      clearTimeout(app.queueTimer);
      app.queueTimer = setTimeout(settleQueue, QUEUE_MS + 10);
      haptic('select');
      render(snap);
      return;
    }
    const choosing = (snap.choices || []).some((c) => c.kind !== 'blind');
    toast(snap.current === snap.me && choosing ? t('chooseFirst') : t('notYourTurn'));
  }

  /** The queued tap acts once it can (no trick on show, the turn's controls armed), if it is
   * still the viewer's to make; else it is dropped with a word. Called after each render and
   * when the controls arm. */
  function settleQueue() {
    const q = app.queued;
    const snap = app.snap;
    if (!q) return;
    const drop = () => {
      app.queued = null;
      clearTimeout(app.queueTimer);
      if (app.snap) { renderControls(app.snap); showStatus(app.snap); }
    };
    // the hand is over or another table is shown; a move of this page's on its way
    if (!snap || snap.table_id !== q.table || snap.hand_index !== q.hand || snap.me < 0 || app.stopped
        || app.sent) return drop();
    const late = performance.now() - q.at > QUEUE_MS;
    if (!late && (app.pause || !app.connected || performance.now() < app.armedAt)) return;  // it waits
    const el = late || !live() ? null
      : document.querySelector(`#hand [data-action="${q.action}"], #choices [data-action="${q.action}"]`);
    if (el) {
      app.queued = null;
      clearTimeout(app.queueTimer);
      app.lastTap = performance.now();  // as if tapped now: a second tap of impatience is not a move
      act(el);
      return;
    }
    drop();
    toast(t('notPlayed'));
  }

  /** Controls that are not moves: the overbid's steps, the call grid's suit, the sheets. */
  function command(cmd, el) {
    if (cmd === 'bid-step') return stepBid(Number(el.dataset.step));
    if (cmd === 'call-suit') { app.callSuit = Number(el.dataset.suit); return render(app.snap); }
    if (cmd === 'score') return openScore();
    if (cmd === 'close-score') return closeScore();
    if (cmd === 'next') return post(el, 'next', { hand_index: app.snap.hand_index });
    if (cmd === 'rematch') return rematch(el);
    if (cmd === 'goto-rematch') return switchTable(app.snap.rematch.param);
    if (cmd === 'start') return post(el, 'start', {});
    return undefined;
  }

  /** POST an act (a card or a choice) from a tapped element with data-action / data-stamp. */
  async function act(el) {
    const snap = app.snap;
    if (!snap) return;
    app.sent = { hand: snap.hand_index, ply: snap.ply, action: Number(el.dataset.action) };
    clearTimeout(app.sentTimer);
    // should the new state never come (a lost stream), the controls wake up again
    app.sentTimer = setTimeout(() => { app.sent = null; if (app.snap) render(app.snap); }, 5000);
    el.classList.add('pending');
    render(snap);  // inert at once
    const body = {
      hand_index: snap.hand_index,
      stamp: Number(el.dataset.stamp),
      action: Number(el.dataset.action),
      ply: snap.ply,
    };
    try {
      const res = await api('POST', tablePath('act'), body);
      const data = res.data || {};
      if (res.ok && data.ok) {
        haptic('light');
      } else if (res.ok && data.moved_on) {
        // lost a race (another device, a double tap): no error, the table as it is now
        app.sent = null;
        app.quiet = t('movedOn');
        if (app.snap) render(app.snap);
      } else {
        refused(data.text || data.error || t('network'));
      }
    } catch (e) {
      refused(t('network'));
    }
  }

  async function post(el, what, body) {
    if (el.classList.contains('pending')) return;
    el.classList.add('pending');
    try {
      const res = await api('POST', tablePath(what), body);
      const data = res.data || {};
      if (res.ok && data.ok) haptic('light');
      else { el.classList.remove('pending'); refusedToast(data.text || data.error); }
      return data;
    } catch (e) {
      el.classList.remove('pending');
      refusedToast(t('network'));
      return {};
    }
  }

  async function rematch(el) {
    const data = await post(el, 'rematch', {});
    if (data && data.rematch && data.rematch.param) switchTable(data.rematch.param);
  }

  /** Follow the table elsewhere (a rematch): its id and key from its start parameter. */
  function switchTable(param) {
    const m = /^t(\d{1,18})(?:_([A-Za-z0-9_-]{1,64}))?$/.exec(String(param || ''));
    if (!m) return;
    if (app.es) { app.es.close(); app.es = null; }
    reportVisibility(true);
    app.tableId = Number(m[1]);
    app.key = m[2] || '';
    app.snap = null;
    app.pause = null;
    app.sent = null;
    app.queued = null;
    try { history.replaceState(null, '', `?t=${m[0]}`); } catch (e) { /* ignore */ }
    boot();
  }

  function refused(text) {
    app.sent = null;
    clearTimeout(app.sentTimer);
    refusedToast(text);
    if (app.snap) render(app.snap);
  }

  function refusedToast(text) {
    haptic('error');
    toast(text);
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

  function shortName(snap, i) {
    const seat = snap.seats && snap.seats[i];
    return seat ? seat.short || seat.name : '?';
  }

  /** Seat i's place round the table from the viewer's chair (0, at the bottom): play goes
   * counter-clockwise (RULES.md 2.5), so the next seat (1) sits on the viewer's right and the
   * others follow up the right edge, along the top and down the left edge. */
  function seatPlace(snap, i) {
    const n = (snap.seats || []).length || 1;
    const base = snap.me >= 0 && snap.me < n ? snap.me : 0;
    return (i - base + n) % n;
  }

  /** One geometry for the seats and the trick (pixels in #table). The other seats are spread
   * evenly along the felt's right, top and left edges (so plates never overlap, on a tall
   * felt or a short one); each trick card lies on the line from the centre to its seat,
   * clearly nearer that seat than any other. */
  function layout(snap) {
    const table = $('table');
    const W = table.clientWidth;
    const H = table.clientHeight;
    const n = (snap.seats || []).length || 1;
    const plateW = n >= 5 ? Math.min(96, Math.max(74, W * 0.21)) : Math.min(108, Math.max(80, W * 0.24));
    const plateH = 46;
    const cx = W / 2;
    const cy = H * 0.47;
    const top = plateH / 2 + 4;
    const left = plateW / 2 + 4;
    const right = W - plateW / 2 - 4;
    const low = Math.max(top, Math.min(cy, H - plateH * 1.6 - 8));  // the sides start here
    const side = low - top;
    const across = right - left;
    const path = 2 * side + across;
    const seats = [];
    for (let i = 0; i < n; i++) {
      const p = seatPlace(snap, i);
      if (p === 0) {
        seats[i] = { x: cx, y: H - plateH / 2 - 4, p };
        continue;
      }
      const d = (path * (p - 0.5)) / (n - 1);
      if (d < side) seats[i] = { x: right, y: low - d, p };
      else if (d < side + across) seats[i] = { x: right - (d - side), y: top, p };
      else seats[i] = { x: left, y: top + (d - side - across), p };
    }
    const cardH = n === 2
      ? Math.max(54, Math.min(H * 0.3, W * 0.27 * 1.5, 168))
      : Math.max(48, Math.min(H * (n >= 5 ? 0.19 : 0.23), W * (n >= 5 ? 0.155 : 0.2) * 1.5, 120));
    // a plate grows wider (to plateMax) for a name's long word that no smaller type fits
    const plateMax = Math.max(plateW, Math.min(W * 0.36, 132));
    app.geometry = { W, H, cx, cy, n, seats, trick: [], cardH, plateW, plateMax };
    return app.geometry;
  }

  /** The trick's places, once the plates are drawn where they fit: each card a fraction of
   * the way to its seat, further when needed to be clearly nearer that seat than any other. */
  function trickPlaces(geo) {
    const { cx, cy, seats, n } = geo;
    const reach = { 2: 0.4, 3: 0.45, 4: 0.45, 5: 0.45, 6: 0.47 }[n] || 0.45;
    geo.trick = seats.map((seat, i) => {
      const at = (k) => ({ x: cx + (seat.x - cx) * k, y: cy + (seat.y - cy) * k });
      let k = reach;
      for (; k < 0.85; k += 0.02) {
        const q = at(k);
        const own = Math.hypot(q.x - seat.x, q.y - seat.y);
        if (seats.every((o, j) => j === i || Math.hypot(q.x - o.x, q.y - o.y) > own * 1.1 + 6)) break;
      }
      return at(k);
    });
  }

  /** Render one snapshot, then publish its move number on #table[data-move]. */
  function render(snap) {
    app.snap = snap;
    if (snap.lang && WORDS[snap.lang]) setLang(snap.lang);
    const root = $('app');
    const choices = snap.me >= 0 ? snap.choices || [] : [];
    root.classList.toggle('spectating', snap.me < 0);
    root.classList.toggle('has-choices', choices.some((c) => c.kind !== 'blind'));
    root.classList.toggle('has-auction', !!snap.auction);
    root.classList.toggle('offline', !app.connected);

    // the controls of a new turn answer only after ARM_MS (and after a trick's pause)
    const key = `${snap.table_id}:${snap.hand_index}:${snap.ply}:${snap.move}`;
    if (key !== app.turnKey) {
      app.turnKey = key;
      app.armedAt = performance.now() + ARM_MS;
      clearTimeout(app.armTimer);
      app.armTimer = setTimeout(() => { if (app.snap) { renderControls(app.snap); settleQueue(); } }, ARM_MS + 10);
    }

    // what sits above and below the felt first: the seats are placed on the felt as it is
    // after the auction panel, the choices and the hand took their height (issue 52)
    renderTop(snap);
    renderAuction(snap);
    renderControls(snap);
    showStatus(snap);
    placeTable(snap);
    renderDeck(snap);
    renderLastTrick(snap);
    renderResult(snap);
    if (!$('score-sheet').hidden) renderScoreSheet(snap);

    const table = $('table');
    table.dataset.status = snap.status || '';
    table.dataset.phase = snap.phase || '';
    table.dataset.move = String(snap.move);
    table.dataset.ply = String(snap.ply);
    table.dataset.pause = app.pause ? '1' : '0';
    settleQueue();
  }

  function showStatus(snap) {
    const quiet = app.queued ? t('queuedNote') : app.quiet;
    $('status').textContent = quiet || snap.message || '';
    $('status').classList.toggle('quiet', !!quiet);
  }

  /** The seats and the trick, on the felt as it is now. */
  function placeTable(snap) {
    const geometry = layout(snap);
    renderSeats(snap, geometry);
    renderTrick(snap, geometry);
  }

  /** The felt's size changed without a render (the controls' height, the viewport, a font):
   * the seats and the trick are placed again, nothing else is redrawn (a slider being
   * dragged stays the same element). */
  function onFeltResize() {
    const geo = app.geometry;
    const table = $('table');
    if (!app.snap || !geo || (table.clientWidth === geo.W && table.clientHeight === geo.H)) return;
    placeTable(app.snap);
  }

  /** What lies on the felt, laid out for the felt's size now. */
  function renderFelt(snap) {
    const geometry = layout(snap);
    renderSeats(snap, geometry);
    renderTrick(snap, geometry);
    renderDeck(snap);
    renderLastTrick(snap);
    renderResult(snap);
  }

  /** The status line: a tap waiting to be played, a quiet word of ours, the overbid's hint
   * said of the bid its big button shows ("Due a 70": 70 points), or the bot's message. */
  function statusText(snap) {
    if (app.queued) return t('queuedNote');
    if (app.quiet) return app.quiet;
    const bid = app.bid;
    if (snap.bid_hint && bid && bid.els && bid.key === app.turnKey) {
      const choice = bid.els.points.find((c) => c.value === bid.value);
      if (choice) return snap.bid_hint.split('{bid}').join(String(choice.label)).split('{n}').join(String(choice.value));
    }
    return snap.message || '';
  }

  function showStatus(snap) {
    $('status').textContent = statusText(snap);
    $('status').classList.toggle('quiet', !!(app.queued || app.quiet));
  }

  /** The hand and the choices, live or inert. */
  function renderControls(snap) {
    const on = live();
    renderHand(snap, on);
    renderChoices(snap, on);
    $('app').classList.toggle('live', on);
    const q = app.queued;
    if (!q) return;
    for (const el of document.querySelectorAll('#hand [data-want], #choices [data-action]')) {
      const want = el.dataset.want !== undefined ? el.dataset.want : el.dataset.action;
      if (Number(want) !== q.action) continue;
      el.classList.add('queued');
      if (el.closest('#hand')) el.appendChild(h('span', { class: 'queued-tag', text: t('queued') }));
    }
  }

  function renderTop(snap) {
    // "Briscola chiamata (5) · mano 1 di 5": on two lines at 360 px, broken at the " · "
    // (each part kept whole while it fits a line)
    const title = clear($('title'));
    const parts = String(snap.title || 'Briscola').split(' · ');
    parts.forEach((part, k) => {
      if (k) title.appendChild(document.createTextNode(' '));
      title.appendChild(h('span', { class: 'part', text: k < parts.length - 1 ? `${part} ·` : part }));
    });
    const spec = $('spectator');
    spec.hidden = snap.me >= 0;
    spec.textContent = '👁 ' + t('spectator');
    const btn = $('score-btn');
    const st = snap.standing;
    btn.hidden = !st;
    if (!st) return;
    btn.dataset.cmd = 'score';
    clear(btn);
    btn.appendChild(h('span', { 'aria-hidden': 'true', text: '🏆' }));
    const short = scoreShort(snap, st);
    // nothing short to say (a spectator of five): the cup alone, the title keeps its room
    if (short) btn.appendChild(h('span', { class: 'score-short', text: short }));
    btn.setAttribute('aria-label', short ? `${t('score')}: ${short}` : t('score'));
  }

  /** The standing in a few characters: "1 – 0" for two sides, else the viewer's own, else
   * nothing. */
  function scoreShort(snap, st) {
    const rows = st.rows || [];
    const fmt = (v) => (st.kind === 'score' ? signed(v) : String(v));
    if (rows.length === 2) return `${fmt(rows[0].value)} – ${fmt(rows[1].value)}`;
    const mine = rows.find((r) => (r.seats || []).includes(snap.me));
    if (mine) return `${t('you')} ${fmt(mine.value)}`;
    return '';
  }

  /** The match's end in the result's caption: " · partita a 11", " · partita: 5 mani" (§7.13). */
  function matchOf(st) {
    const of = t('matchOf').toLowerCase();
    if (st.fixed_hands) return ` · ${of}: ${st.fixed_hands} ${t('hands')}`;
    return st.target ? ` · ${of} ${t('upTo')} ${st.target}` : '';
  }

  function standingTable(snap, st, captionText) {
    const kind = st.kind;
    const head = kind === 'hands' ? t('handsWon') : kind === 'points' ? t('matchPoints') : t('matchScore');
    // §7.13: a target ("a 11"), or a fixed number of hands ("5 mani")
    const target = st.fixed_hands ? ` (${st.fixed_hands} ${t('hands')})`
      : st.target ? ` (${t('upTo')} ${st.target})` : '';
    const hasHand = (st.rows || []).some((r) => r.hand_points !== null && r.hand_points !== undefined);
    const teams = (st.rows || []).some((r) => (r.seats || []).length > 1);
    const table = h('table', { class: 'score-table' },
      h('caption', { text: captionText || t('score') }),
      h('thead', null, h('tr', null,
        h('th', { scope: 'col', text: teams ? t('side') : t('player') }),
        h('th', { scope: 'col', class: 'num', text: head + target }),
        hasHand ? h('th', { scope: 'col', class: 'num', text: t('handPoints') }) : null)));
    const body = h('tbody');
    (st.rows || []).forEach((r) => {
      const mine = (r.seats || []).includes(snap.me);
      body.appendChild(h('tr', { class: mine ? 'mine' : null },
        h('th', { scope: 'row', class: 'who', text: r.label }),
        h('td', { class: 'num', text: kind === 'score' ? signed(r.value) : String(r.value) }),
        hasHand ? h('td', { class: 'num', text: r.hand_points === null || r.hand_points === undefined ? '—' : String(r.hand_points) }) : null));
    });
    table.appendChild(body);
    return table;
  }

  function openScore() {
    const sheet = $('score-sheet');
    sheet.hidden = false;
    $('score-btn').setAttribute('aria-expanded', 'true');
    renderScoreSheet(app.snap);
  }

  function closeScore() {
    $('score-sheet').hidden = true;
    $('score-btn').setAttribute('aria-expanded', 'false');
  }

  function renderScoreSheet(snap) {
    const sheet = clear($('score-sheet'));
    const st = snap && snap.standing;
    if (!st) { sheet.hidden = true; return; }
    sheet.appendChild(h('div', { class: 'sheet-box' },
      standingTable(snap, st, `${t('score')} · ${snap.title || ''}`),
      h('button', { type: 'button', class: 'secondary', dataset: { cmd: 'close-score' }, text: t('close') })));
  }

  function renderAuction(snap) {
    const el = $('auction');
    const a = snap.auction;
    clear(el);
    el.hidden = !a;
    if (!a) return;
    if (snap.phase === 'auction' || !(a.bids || []).length) {
      const bids = h('div', { class: 'bids' }, h('span', { class: 'label', text: t('auction') }));
      (a.bids || []).forEach((b, k) => {
        const last = k === a.bids.length - 1;
        bids.appendChild(h('span', {
          class: 'bid-chip' + (last ? ' last' : ''), dataset: { by: String(b.seat) },
        }, h('span', { class: 'who', text: shortName(snap, b.seat) }), h('span', { class: 'what', text: String(b.label) })));
      });
      if (!(a.bids || []).length) bids.appendChild(h('span', { class: 'hint', text: t('noBids') }));
      el.appendChild(bids);
      requestAnimationFrame(() => { bids.scrollLeft = bids.scrollWidth; });
    }
    const parts = [];
    if (a.caller >= 0) {
      parts.push(h('span', { class: 'item caller' },
        h('span', { class: 'label', text: t('caller') }), h('span', { class: 'name-text', text: shortName(snap, a.caller) })));
    }
    if (a.called) {
      parts.push(h('span', { class: 'item called' }, h('span', { class: 'label', text: t('called') }),
        cardEl(a.called, { cls: 'tiny', mini: true }), h('span', { class: 'called-name', text: a.called.name })));
    }
    if (a.target !== undefined && a.target !== null && a.caller >= 0) {
      parts.push(h('span', { class: 'item target' },
        h('span', { class: 'label', text: t('target') }), h('b', { text: String(a.target) })));
    }
    if (a.you_are_socio) {
      parts.push(h('span', { class: 'item socio you-socio', text: '🤝 ' + t('youAreSocio') }));
    } else if (a.socio >= 0) {
      parts.push(h('span', { class: 'item socio' },
        h('span', { class: 'label', text: t('socio') }), h('span', { class: 'name-text', text: shortName(snap, a.socio) })));
    } else if (a.alone) {
      parts.push(h('span', { class: 'item socio', text: t('alone') }));
    }
    if (parts.length) el.appendChild(h('div', { class: 'summary' }, ...parts));
  }

  function renderSeats(snap, geo) {
    const box = clear($('seats'));
    const seats = snap.seats || [];
    const lastBid = {};
    if (snap.auction && snap.phase === 'auction') {
      (snap.auction.bids || []).forEach((b) => { lastBid[b.seat] = b.label; });
    }
    const visible = {};
    (snap.visible_hands || []).forEach((v) => { visible[v.seat] = v.cards || []; });
    const scoreOf = {};
    const st = snap.standing;
    if (st && st.kind === 'score') (st.rows || []).forEach((r) => { scoreOf[r.seats[0]] = r.value; });
    const winner = app.pause ? app.pause.trick.winner : -1;

    seats.forEach((seat, i) => {
      const pos = geo.seats[i];
      const turn = !app.pause && (!!seat.turn || snap.current === i);
      const cls = ['seat', pos.p === 0 ? 'bottom' : '', turn ? 'turn' : '', i === snap.me ? 'me' : '',
        seat.away ? 'away' : '', seat.passed ? 'passed' : '', i === winner ? 'takes' : '',
        pos.y < geo.cy - 8 ? 'upper' : '']
        .filter(Boolean).join(' ');
      const el = h('div', { class: cls, dataset: { seat: String(i) } });
      el.style.left = `${pos.x}px`;
      el.style.top = `${pos.y}px`;
      el.style.width = `${geo.plateW}px`;

      const name = h('div', { class: 'name' });
      if (turn) name.appendChild(h('span', { class: 'turn-mark', 'aria-label': t('turn'), text: '▶' }));
      // a computer: "🤖 Ada", its level on a line of its own
      name.appendChild(h('span', { class: 'name-text', text: seat.level ? shortName(snap, i) : seat.name }));
      el.appendChild(name);
      if (seat.level) el.appendChild(h('div', { class: 'level', text: seat.level }));

      const tags = h('div', { class: 'tags' });
      if (i === snap.me) tags.appendChild(h('span', { class: 'chip you', text: t('you') }));
      if (seat.dealer) tags.appendChild(h('span', { class: 'chip dealer', title: t('dealer'), 'aria-label': t('dealer'), text: t('dealerShort') }));
      if (seat.team) tags.appendChild(h('span', { class: 'chip team', title: `${t('team')} ${seat.team}`, text: String(seat.team) }));
      if (snap.phase && i !== snap.me) {
        tags.appendChild(h('span', { class: 'ncards', title: `${seat.cards} ${t('cards')}`, 'aria-label': `${seat.cards} ${t('cards')}` },
          h('span', { class: 'mini-back', 'aria-hidden': 'true' }), String(seat.cards ?? 0)));
      }
      if (scoreOf[i] !== undefined) {
        tags.appendChild(h('span', {
          class: 'chip score', title: t('matchScore'), 'aria-label': `${t('matchScore')}: ${signed(scoreOf[i])}`,
          text: `${t('scoreChip')} ${signed(scoreOf[i])}`,
        }));
      }
      if (seat.caller) tags.appendChild(h('span', { class: 'flag', title: t('caller'), 'aria-label': t('caller'), text: '📣' }));
      if (seat.socio) tags.appendChild(h('span', { class: 'flag', title: t('socio'), 'aria-label': t('socio'), text: '🤝' }));
      if (seat.away) tags.appendChild(h('span', { class: 'flag', title: t('away'), 'aria-label': t('away'), text: '💤' }));
      el.appendChild(tags);

      if (i === winner) {
        const pts = app.pause.trick.points;
        const text = pts === null || pts === undefined ? t('takes') : `${t('takes')} +${pts}`;
        el.appendChild(h('div', { class: 'bubble takes-bubble', text }));
      } else if (lastBid[i] !== undefined) {
        el.appendChild(h('div', { class: 'bubble' + (seat.passed ? ' pass' : ''), text: String(lastBid[i]) }));
      }
      if (visible[i] && visible[i].length) {
        const row = h('div', { class: 'visible-hand' });
        visible[i].forEach((c) => row.appendChild(cardEl(c, { mini: true, cls: 'micro' })));
        el.appendChild(row);
      }
      box.appendChild(el);
      fitName(el, geo);
      // a plate taller or wider than planned (a long name, many tags) stays inside the felt
      const half = el.offsetHeight / 2;
      const y = Math.max(half + 3, Math.min(geo.H - half - 3, pos.y));
      if (y !== pos.y) {
        pos.y = y;
        el.style.top = `${y}px`;
      }
      const halfW = el.offsetWidth / 2;
      const x = Math.max(halfW + 3, Math.min(geo.W - halfW - 3, pos.x));
      if (x !== pos.x) {
        pos.x = x;
        el.style.left = `${x}px`;
      }
    });
    separatePlates(geo, [...box.children]);
    trickPlaces(geo);
  }

  /** Plates taller than planned (a name on two lines, a computer's level, tags on two
   * rows) may reach a neighbour: of two that touch (a plate with its bubble, "Due a 62"),
   * the lower moves down (or, at the felt's bottom, the upper up); two side by side move
   * apart. Each stays inside the felt. */
  function separatePlates(geo, els) {
    const gap = 4;
    const plates = els.map((el) => {
      const pos = geo.seats[Number(el.dataset.seat)];
      const box = el.getBoundingClientRect();
      let [top, bottom] = [box.top, box.bottom];
      el.querySelectorAll('.bubble').forEach((b) => {
        const r = b.getBoundingClientRect();
        top = Math.min(top, r.top);
        bottom = Math.max(bottom, r.bottom);
      });
      const mid = (box.top + box.bottom) / 2;
      return { el, pos, w: box.width, above: mid - top, below: bottom - mid };
    });
    const put = (p, x, y) => {
      p.pos.x = Math.max(p.w / 2 + 3, Math.min(geo.W - p.w / 2 - 3, x));
      p.pos.y = Math.max(p.above + 3, Math.min(geo.H - p.below - 3, y));
      p.el.style.left = `${p.pos.x}px`;
      p.el.style.top = `${p.pos.y}px`;
    };
    for (let round = 0; round < 6; round++) {
      let moved = false;
      for (const p of plates) {
        for (const q of plates) {
          if (p === q) continue;
          const dx = (p.w + q.w) / 2 + gap - Math.abs(p.pos.x - q.pos.x);
          const [up, low] = p.pos.y <= q.pos.y ? [p, q] : [q, p];
          const dy = up.pos.y + up.below + gap - (low.pos.y - low.above);
          if (dx <= 0 || dy <= 0) continue;
          moved = true;
          if (Math.abs(p.pos.y - q.pos.y) < 1) {  // side by side
            const [l, r] = p.pos.x <= q.pos.x ? [p, q] : [q, p];
            put(l, l.pos.x - dx / 2, l.pos.y);
            put(r, r.pos.x + dx / 2, r.pos.y);
            continue;
          }
          const y = low.pos.y;
          put(low, low.pos.x, y + dy);
          if (low.pos.y - y < dy - 0.5) put(up, up.pos.x, up.pos.y - (dy - (low.pos.y - y)));
        }
      }
      if (!moved) break;
    }
  }

  /** A plate's name whole, never cut: on two lines at the words' spaces; a word longer than
   * the plate in smaller type (12, then 11 px), then on a wider plate (up to plateMax), and
   * only a word longer still is broken across lines. */
  function fitName(el, geo) {
    const text = el.querySelector('.name-text');
    if (!text) return;
    const fits = () => text.scrollWidth <= text.clientWidth + 0.5;
    for (const px of [12, 11]) {
      if (fits()) return;
      text.style.fontSize = `${px}px`;
    }
    if (fits()) return;
    el.style.width = `${Math.min(geo.plateMax, el.offsetWidth + text.scrollWidth - text.clientWidth + 1)}px`;
    if (!fits()) text.style.overflowWrap = 'anywhere';
  }

  function renderTrick(snap, geo) {
    const el = $('trick');
    el.setAttribute('aria-label', t('trick'));
    const pause = app.pause;
    const plays = pause ? pause.trick.plays : snap.trick || [];
    const before = new Set([...el.querySelectorAll('.trick-card')].map((c) => c.dataset.card));
    clear(el);
    const w = (geo.cardH * 2) / 3;
    plays.forEach((play, k) => {
      const pos = geo.trick[play.seat] || { x: geo.cx, y: geo.cy };
      const won = pause && play.seat === pause.trick.winner;
      const card = cardEl(play.card, { cls: 'trick-card' + (won ? ' won' : '') });
      card.dataset.by = String(play.seat);
      card.setAttribute('aria-label', `${seatName(snap, play.seat)}: ${play.card.name}`);
      const tilt = ((play.card.id * 37) % 9) - 4;
      card.style.width = `${w}px`;
      card.style.height = `${geo.cardH}px`;
      card.style.left = `${pos.x}px`;
      card.style.top = `${pos.y}px`;
      card.style.transform = `translate(-50%, -50%) rotate(${tilt}deg)`;
      card.style.zIndex = String(10 + k);
      el.appendChild(card);
      if (!before.has(String(play.card.id)) && typeof card.animate === 'function') {
        // it lands: from its player's seat to its place
        const from = geo.seats[play.seat] || pos;
        card.animate([
          { transform: `translate(calc(-50% + ${from.x - pos.x}px), calc(-50% + ${from.y - pos.y}px)) scale(0.55)`, opacity: 0.4 },
          { transform: card.style.transform, opacity: 1 },
        ], { duration: 240, easing: 'ease-out' });
      }
    });
  }

  function renderDeck(snap) {
    const deck = $('deck');
    const bris = clear($('briscola'));
    const talon = clear($('talon'));
    const inHand = !!snap.phase;
    const count = Number(snap.talon) || 0;
    deck.hidden = !inHand || (!snap.briscola && !snap.turned && count <= 0);
    if (deck.hidden) return;
    // the turned card while it lies on the table; then the briscola's suit alone
    bris.className = '';
    if (snap.turned) {
      bris.className = 'turned';
      bris.appendChild(cardEl(snap.turned, { cls: 'briscola-card' }));
      bris.hidden = false;
    } else if (snap.briscola) {
      bris.className = 'suit-only';
      bris.appendChild(h('span', { class: 'badge', role: 'img', 'aria-label': `${t('briscola')}: ${snap.briscola.name}` },
        suitIcon(snap.briscola.suit, !!snap.french)));
      bris.appendChild(h('span', { class: 'caption', text: t('briscola') }));
      bris.hidden = false;
    } else {
      bris.hidden = true;
    }
    talon.hidden = count <= 0;
    talon.setAttribute('aria-label', `${t('talon')}: ${count}`);
    talon.title = `${t('talon')}: ${count}`;
    if (count > 0) {
      if (count > 1) talon.appendChild(backEl('stack-under'));
      talon.appendChild(snap.talon_next ? cardEl(snap.talon_next, { cls: 'talon-next' }) : backEl('stack-top'));
      talon.appendChild(h('span', { class: 'count', text: String(count) }));
    }
    deck.classList.toggle('no-talon', count <= 0);
  }

  function renderLastTrick(snap) {
    const el = clear($('last-trick'));
    const last = snap.last_trick;
    el.hidden = !last || !(last.plays || []).length || !!app.pause || !!snap.outcome;
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

  /** A role in the result's table: the plates' sign (📣, 🤝, a team's letter), its word for
   * screen readers (the names keep the width). */
  function roleCell(role) {
    const word = roleText(role);
    const sign = role === 'caller' ? '📣' : role === 'socio' ? '🤝'
      : role && role.startsWith('team:') ? role.slice(5) : word;
    if (sign === word) return h('td', { class: 'role', text: word });
    return h('td', { class: 'role', title: word },
      h('span', { 'aria-hidden': 'true', text: sign }), h('span', { class: 'sr-only', text: word }));
  }

  function roleText(role) {
    if (!role || role === 'other') return t('other');
    if (role === 'caller') return t('caller');
    if (role === 'socio') return t('socio');
    if (role.startsWith('team:')) return `${t('team')} ${role.slice(5)}`;
    return role;
  }

  /** A lobby (a rematch's, say): who sits, and for the table's creator the start. */
  function renderLobby(snap, el) {
    const box = h('div', { class: 'result-box', role: 'dialog', 'aria-label': snap.title || '' });
    box.appendChild(h('h2', { class: 'headline', text: snap.title || 'Briscola' }));
    box.appendChild(h('p', { class: 'line', text: snap.message || '' }));
    const list = h('ul', { class: 'lobby-seats' });
    (snap.seats || []).forEach((seat, i) => list.appendChild(h('li', { text: shortName(snap, i) })));
    box.appendChild(list);
    if (snap.can_start) {
      box.appendChild(h('div', { class: 'result-buttons' },
        h('button', { type: 'button', id: 'start', class: 'primary', dataset: { cmd: 'start' }, text: t('start') })));
    }
    el.appendChild(box);
  }

  function renderResult(snap) {
    const el = clear($('result'));
    if (snap.status === 'lobby') {
      el.hidden = false;
      renderLobby(snap, el);
      return;
    }
    const o = snap.outcome;
    const show = !!o && !app.pause;
    el.hidden = !show;
    if (!show) return;
    const box = h('div', { class: 'result-box', role: 'dialog', 'aria-label': t('result') });
    box.appendChild(h('h2', { class: 'headline', text: o.headline }));
    const scroll = h('div', { class: 'result-scroll' });
    const st = snap.standing;
    // chiamata: each player's running score in the same table (§7.12)
    const total = {};
    if (st && st.kind === 'score') (st.rows || []).forEach((r) => { total[r.seats[0]] = r.value; });
    const totals = Object.keys(total).length > 0;
    if ((o.rows || []).length) {
      const roles = o.rows.some((r) => r.role);
      const table = h('table', { class: 'outcome' },
        h('caption', { text: (snap.title || t('result')) + (totals ? matchOf(st) : '') }),
        h('thead', null, h('tr', null,
          h('th', { scope: 'col', text: t('player') }),
          roles ? h('th', { scope: 'col', text: t('role') }) : null,
          h('th', { scope: 'col', class: 'num', text: t('points') }),
          h('th', { scope: 'col', class: 'num', text: t('delta') }),
          totals ? h('th', { scope: 'col', class: 'num', title: t('matchScore'), text: t('total') }) : null)));
      const body = h('tbody');
      o.rows.forEach((r) => {
        body.appendChild(h('tr', { class: [r.won ? 'won' : '', r.seat === snap.me ? 'mine' : ''].filter(Boolean).join(' ') || null },
          h('th', { scope: 'row', class: 'who', text: shortName(snap, r.seat) }),
          roles ? roleCell(r.role) : null,
          h('td', { class: 'num', text: String(r.points) }),
          h('td', { class: 'num delta', text: signed(r.delta) }),
          totals ? h('td', { class: 'num total', text: signed(total[r.seat] || 0) }) : null));
      });
      table.appendChild(body);
      scroll.appendChild(table);
    }
    for (const line of [o.caller, o.cappotto ? '🎉 Cappotto!' : '', o.ledger]) {
      if (line) scroll.appendChild(h('p', { class: 'line', text: line }));
    }
    if (st && !totals && (st.rows || []).length && !o.redeal) {
      scroll.appendChild(standingTable(snap, { ...st, rows: st.rows.map((r) => ({ ...r, hand_points: null })) }, t('matchOf')));
    }
    box.appendChild(scroll);
    if (o.match_over) box.appendChild(h('p', { class: 'match-over', text: o.match_over }));
    const buttons = h('div', { class: 'result-buttons' });
    if (snap.can_next) buttons.appendChild(h('button', { type: 'button', id: 'next-hand', class: 'primary', dataset: { cmd: 'next' }, text: t('nextHand') }));
    if (snap.rematch) buttons.appendChild(h('button', { type: 'button', id: 'goto-rematch', class: 'primary', dataset: { cmd: 'goto-rematch' }, text: t('toRematch') }));
    else if (snap.can_rematch) buttons.appendChild(h('button', { type: 'button', id: 'rematch', class: 'primary', dataset: { cmd: 'rematch' }, text: '🔁 ' + t('rematch') }));
    if (buttons.firstChild) box.appendChild(buttons);
    el.appendChild(box);
  }

  const STRIP = 44;  // px of a hand's card that show beside the next one: a finger's width

  /** The hand's cards: n of them, at a table of `players`, filling the width: up to 28 % of
   * it each (in due the felt holds two cards at most, so the three in the hand may take a
   * quarter of the height: 28 % of the width each also in Telegram's 360x600 sheet),
   * overlapping when there are many, each showing at least STRIP px of itself. When one row
   * cannot (8 cards are 48 px wide at 360 px; 10 do not fit), two: the first half behind,
   * its cards' tops (STRIP px and a raised card's lift) above the second half's. `rise`:
   * how far the back row sits above the front row. */
  function handSizes(n, players) {
    const hand = $('hand');
    const W = Math.max(200, hand.clientWidth - 4);
    const H = window.innerHeight;
    const share = n > 5 ? 0.17 : players <= 2 && n <= 3 ? 0.26 : 0.2;
    const maxH = Math.max(66, Math.min(H * share, 176));
    const row = (k, top) => {
      let w = Math.min(W * 0.28, (top * 2) / 3, n > 5 ? 84 : 200);
      let step = k > 1 ? Math.min(w + 6, (W - w) / (k - 1)) : 0;
      if (k > 1 && step < STRIP) {
        step = STRIP;
        w = Math.min(w, W - step * (k - 1));
      }
      return { w, h: (w * 3) / 2, step };
    };
    const one = row(n, maxH);
    if (one.w >= STRIP) return { ...one, per: n, rise: 0 };
    const per = Math.ceil(n / 2);
    const two = row(per, Math.max(84, Math.min(H * 0.14, 120)));
    return { ...two, per, rise: Math.max(STRIP + 8, Math.round(two.h * 0.5)) };
  }

  function renderHand(snap, on) {
    const el = clear($('hand'));
    el.setAttribute('aria-label', t('hand'));
    const spectator = snap.me < 0;
    const cards = snap.hand || [];
    const blindChoices = (snap.choices || []).filter((c) => c.kind === 'blind');
    const blind = !cards.length && snap.blind > 0;
    el.hidden = spectator || !snap.phase || (!cards.length && !blind);
    if (el.hidden) return;
    const n = blind ? snap.blind : cards.length;
    const { w, h: ch, step, per, rise } = handSizes(n, (snap.seats || []).length);
    el.style.setProperty('--cw', `${w}px`);
    el.style.setProperty('--ch', `${ch}px`);
    el.style.height = `${ch + rise + 12}px`;
    const lefts = (k) => Math.max(0, (el.clientWidth - w - step * (k - 1)) / 2);
    const playable = new Set(snap.playable || []);
    const mine = playable.size > 0 || blindChoices.length > 0;
    el.classList.toggle('idle', !mine);
    el.classList.toggle('armed', on && mine);
    const place = (btn, k) => {
      const back = k < per;  // the back row (all of one row)
      const j = back ? k : k - per;
      btn.style.left = `${lefts(back ? per : n - per) + j * step}px`;
      btn.style.bottom = back ? `${rise}px` : '0px';
      btn.style.zIndex = String(k + 1);
      el.appendChild(btn);
    };
    if (blind) {
      for (let k = 0; k < snap.blind; k++) {
        const choice = blindChoices.find((c) => c.action === 100 + k);
        const btn = backEl(choice ? 'playable' : 'dimmed', `${t('hidden')} ${k + 1}`, true);
        btn.dataset.want = String(100 + k);
        if (choice) {
          btn.dataset.action = String(choice.action);
          btn.dataset.stamp = String(choice.stamp);
          if (!on) btn.setAttribute('aria-disabled', 'true');
        } else btn.setAttribute('aria-disabled', 'true');  // a tap on it is told why not
        place(btn, k);
      }
      return;
    }
    cards.forEach((card, k) => {
      const ok = playable.has(card.id);
      const sent = app.sent && app.sent.action === card.id;
      const btn = cardEl(card, { button: true, cls: (ok ? 'playable' : 'dimmed') + (sent ? ' pending' : '') });
      btn.dataset.want = String(card.id);
      if (ok) {
        btn.dataset.action = String(card.id);
        btn.dataset.stamp = String(snap.card_stamp);
        if (!on) btn.setAttribute('aria-disabled', 'true');
      } else {
        btn.setAttribute('aria-disabled', 'true');  // a tap on it is queued or told why not
      }
      place(btn, k);
    });
  }

  function choiceButton(c, french, on) {
    const kind = c.kind || 'bid';
    const btn = h('button', {
      type: 'button', class: `choice kind-${kind}`,
      dataset: { action: String(c.action), stamp: String(c.stamp), kind },
      'aria-disabled': on ? null : 'true',
    });
    if (kind === 'suit' && typeof c.suit === 'number') btn.appendChild(suitIcon(c.suit, french));
    else if (c.card) btn.appendChild(cardEl(c.card, { mini: true, cls: 'tiny' }));
    const label = String(c.label ?? '');
    const short = String(c.short || label);
    btn.appendChild(h('span', { class: 'choice-label', text: short }));
    if (short !== label) btn.setAttribute('aria-label', label);
    btn.title = label;
    return btn;
  }

  function renderChoices(snap, on) {
    const el = clear($('choices'));
    const choices = (snap.me >= 0 ? snap.choices || [] : []).filter((c) => c.kind !== 'blind');
    el.hidden = !choices.length;
    el.setAttribute('aria-label', t('choices'));
    el.classList.toggle('armed', on);
    if (!choices.length) return;
    const french = !!snap.french;
    const points = choices.filter((c) => c.kind === 'points');
    const calls = choices.filter((c) => c.kind === 'call' && c.card);
    const suits = choices.filter((c) => c.kind === 'suit');
    const others = choices.filter((c) => !points.includes(c) && !calls.includes(c) && !suits.includes(c));
    if (points.length) el.appendChild(overbid(snap, points, on));
    if (suits.length) {
      const grid = h('div', { class: 'choice-grid suits' });
      suits.forEach((c) => grid.appendChild(choiceButton(c, french, on)));
      el.appendChild(grid);
    }
    if (calls.length) el.appendChild(callGrid(calls, french, on));
    if (others.length) {
      const bids = others.filter((c) => c.kind === 'bid');
      const rest = others.filter((c) => c.kind !== 'bid');
      if (bids.length) {
        const grid = h('div', { class: 'choice-grid bids' + (bids.length > 6 ? ' five' : '') });
        bids.forEach((c) => grid.appendChild(choiceButton(c, french, on)));
        el.appendChild(grid);
      }
      if (rest.length) {
        const row = h('div', { class: 'choice-row' });
        rest.forEach((c) => row.appendChild(choiceButton(c, french, on)));
        el.appendChild(row);
      }
    }
  }

  /** The overbid (§7.3): one big button with the bid (the minimum at first), − / + / +5, a
   * slider for a far value, and Passo beside. Any value is reached in at most 3 taps: a tap
   * on the slider's track, then − or + at most twice. Choosing changes nothing on the
   * server; the big button bids. */
  function overbid(snap, points, on) {
    const values = points.map((c) => c.value).sort((a, b) => a - b);
    const key = app.turnKey;
    if (!app.bid || app.bid.key !== key || !values.includes(app.bid.value)) app.bid = { key, value: values[0] };
    const box = h('div', { class: 'overbid', dataset: { min: String(values[0]), max: String(values[values.length - 1]) } });
    const step = (d, label, text) => h('button', {
      type: 'button', class: 'step', dataset: { cmd: 'bid-step', step: String(d) }, 'aria-label': label, text,
    });
    const main = h('button', {
      type: 'button', class: 'choice kind-points bid-main', dataset: { kind: 'points' },
      'aria-disabled': on ? null : 'true',
    }, h('span', { class: 'choice-label' }));
    const row = h('div', { class: 'overbid-row' }, step(-1, t('bidLess'), '−'), main, step(1, t('bidMore'), '+'), step(5, t('bidMore5'), '+5'));
    box.appendChild(row);
    let range = null;
    if (values.length > 1) {
      range = h('input', {
        type: 'range', class: 'bid-range', min: values[0], max: values[values.length - 1], step: 1,
        'aria-label': t('bidValue'),
      });
      range.addEventListener('input', () => setBid(Number(range.value)));
      box.appendChild(range);
    }
    app.bid.els = { main, range, steps: [...row.querySelectorAll('.step')], points };
    showBid();
    return box;
  }

  /** The overbid's controls show app.bid.value (updated in place: a slider being dragged
   * stays the same element). */
  function showBid() {
    const bid = app.bid;
    if (!bid || !bid.els) return;
    const { main, range, steps, points } = bid.els;
    const choice = points.find((c) => c.value === bid.value) || points[0];
    main.dataset.action = String(choice.action);
    main.dataset.stamp = String(choice.stamp);
    main.dataset.value = String(choice.value);
    main.firstChild.textContent = String(choice.label);
    if (range && Number(range.value) !== bid.value) range.value = String(bid.value);
    if (app.snap) {
      // the hint follows the value; should it take another line, the felt is laid out again
      const before = $('status').offsetHeight;
      showStatus(app.snap);
      if ($('status').offsetHeight !== before) requestAnimationFrame(() => { if (app.snap) renderFelt(app.snap); });
    }
    const lo = points.reduce((m, c) => Math.min(m, c.value), Infinity);
    const hi = points.reduce((m, c) => Math.max(m, c.value), -Infinity);
    steps.forEach((b) => { b.disabled = Number(b.dataset.step) < 0 ? bid.value <= lo : bid.value >= hi; });
  }

  function setBid(value) {
    const bid = app.bid;
    if (!bid || !bid.els) return;
    const values = bid.els.points.map((c) => c.value);
    const lo = Math.min(...values);
    const hi = Math.max(...values);
    let v = Math.max(lo, Math.min(hi, Math.round(value)));
    while (!values.includes(v) && v < hi) v += 1;  // the legal values are consecutive anyway
    bid.value = v;
    showBid();
  }

  function stepBid(d) {
    if (app.bid) setBid(app.bid.value + d);
  }

  /** Calling a card (§7.9): by suit, then the card; few cards are shown at once. */
  function callGrid(calls, french, on) {
    const box = h('div', { class: 'call' });
    const suits = [...new Set(calls.map((c) => c.card.s))].sort((a, b) => a - b);
    let shown = calls;
    if (calls.length > 10 && suits.length > 1) {
      if (!suits.includes(app.callSuit)) app.callSuit = suits[0];
      const tabs = h('div', { class: 'choice-grid suits tabs', role: 'tablist', 'aria-label': t('chooseSuit') });
      suits.forEach((suit) => {
        const sample = calls.find((c) => c.card.s === suit);
        tabs.appendChild(h('button', {
          type: 'button', class: 'choice kind-suit tab' + (suit === app.callSuit ? ' selected' : ''), role: 'tab',
          'aria-selected': suit === app.callSuit ? 'true' : 'false', dataset: { cmd: 'call-suit', suit: String(suit) },
        }, suitIcon(suit, french), h('span', { class: 'choice-label', text: suitLabel(sample) })));
      });
      box.appendChild(tabs);
      shown = calls.filter((c) => c.card.s === app.callSuit);
    }
    const grid = h('div', { class: 'call-grid' });
    shown.forEach((c) => {
      const btn = cardEl(c.card, { button: true, mini: true, cls: 'choice call' });
      btn.dataset.action = String(c.action);
      btn.dataset.stamp = String(c.stamp);
      btn.dataset.kind = 'call';
      if (!on) btn.setAttribute('aria-disabled', 'true');
      grid.appendChild(btn);
    });
    box.appendChild(grid);
    return box;
  }

  function suitLabel(choice) {
    const name = String(choice.card.name || '');
    const parts = name.split(' ');
    return parts[parts.length - 1] || name;
  }

  // ------------------------------------------------------------------ what replay.js shares

  // the replay of a finished hand (replay.js) draws cards and talks to the server as this
  // page does
  app.ui = {
    app, h, s, clear, cardEl, backEl, suitIcon, t, setLang, haptic, fatal, api, renewSession,
    FatalError, signed,
  };

  // ------------------------------------------------------------------ start

  function start() {
    app.pageId = Array.from(crypto.getRandomValues(new Uint8Array(9)), (b) => b.toString(16).padStart(2, '0')).join('');
    initTelegram();
    $('conn').textContent = t('reconnecting');
    const launch = launchParam();
    if (launch !== null && launch.hand !== undefined && window.BriscolaReplay) {
      // a finished hand to step through (replay.js): a page of its own, no live table
      app.tableId = launch.id;
      app.key = launch.key;
      app.stopped = true;  // nothing of the live table runs: no stream, no reports
      window.BriscolaReplay.start(app.ui, launch);
      return;
    }
    document.addEventListener('pointerdown', onPointerDown, true);
    document.addEventListener('click', onClick);
    if (launch === null) {
      fatal(t('notFound'), t('openFromBot'));
      return;
    }
    app.tableId = launch.id;
    app.key = launch.key;
    $('title').textContent = t('loading');
    document.addEventListener('visibilitychange', onVisibility);
    window.addEventListener('pagehide', () => reportVisibility(true));
    window.addEventListener('pageshow', (ev) => { if (ev.persisted) onVisibility(); });
    if (typeof ResizeObserver === 'function') new ResizeObserver(onFeltResize).observe($('table'));
    let resizeTimer = null;
    window.addEventListener('resize', () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => { if (app.snap) render(app.snap); }, 60);
    });
    boot();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
