// Run in the browser by the replay sanitiser: `sanitizeCss(text)` rewrites every URL that CSS text
// (a stylesheet, a style attribute, a property value, a font source) would make the browser load and
// that a replay may not load, to "data:," (which loads nothing); the rest of the text is kept as it
// was. URLs are found as the CSS tokenizer finds them (CSS Syntax 3): url() tokens and url("…"),
// src("…"), image("…") and image-set("…") strings, and the string or url() after @import, with
// escapes decoded (u\72l( is url(), \68ttp: is http:), never inside comments or other strings. Where
// this reader and the browser could disagree, it reads a URL where there is none (a dimension like
// 1url(x)), never the reverse. Allowed: http(s) images and fonts (the player's CSP then decides),
// data: (but not for @import) and #fragment references; everything else goes.
import { INERT_URL, urlAllowed, urlKind } from './url-policy';

const HEX = /^[0-9a-fA-F]$/;

/** The code point an escape at s[i] (the backslash) stands for, and where the escape ends. */
function escapeAt(s: string, i: number): { text: string; end: number } {
  let j = i + 1;
  let hex = '';
  while (j < s.length && hex.length < 6 && HEX.test(s[j])) hex += s[j++];
  if (!hex) return { text: j < s.length ? s[j] : '\ufffd', end: Math.min(j + 1, s.length) };
  if (j < s.length && /[ \t\n\r\f]/.test(s[j])) j += s[j] === '\r' && s[j + 1] === '\n' ? 2 : 1;
  const cp = parseInt(hex, 16);
  return { text: cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? '\ufffd' : String.fromCodePoint(cp), end: j };
}

const isEscape = (s: string, i: number) => s[i] === '\\' && i + 1 < s.length && s[i + 1] !== '\n' && s[i + 1] !== '\r' && s[i + 1] !== '\f';
function isNameChar(c: string): boolean {
  const x = c.charCodeAt(0);
  return (x >= 97 && x <= 122) || (x >= 65 && x <= 90) || (x >= 48 && x <= 57) || x === 45 || x === 95 || x >= 0x80;
}

// Runs of plain characters are matched by regular expressions, not a character at a time: a fresh
// replay page runs this once, before the JavaScript engine has optimised it (1.3 MB: 230 -> 55 ms).
const NAME_RUN = /[A-Za-z0-9_\-\u0080-\uffff]+/y;
const STRING_RUN = /[^"'\\\n\r\f]+/y;
/** Characters after which nothing can start a URL: skipped at once. */
const INERT_RUN = /[^/"'@\\A-Za-z0-9_\-\u0080-\uffff(){};]+/y;

/** The end of the run of `re` at s[i] (i itself when there is none). */
function runEnd(re: RegExp, s: string, i: number): number {
  re.lastIndex = i;
  return re.test(s) ? re.lastIndex : i;
}

/** A name (identifier, function or at-rule name) starting at s[i]: its decoded text and end, or null. */
function nameAt(s: string, i: number): { name: string; end: number } | null {
  let j = i;
  let name = '';
  while (j < s.length) {
    if (isEscape(s, j)) {
      const e = escapeAt(s, j);
      name += e.text;
      j = e.end;
    } else {
      const end = runEnd(NAME_RUN, s, j);
      if (end === j) break;
      name += s.slice(j, end);
      j = end;
    }
  }
  return j > i ? { name, end: j } : null;
}

/** A quoted string starting at s[i]: its decoded value and end (a newline ends it unclosed). */
function stringAt(s: string, i: number): { value: string; end: number } {
  const quote = s[i];
  let j = i + 1;
  let value = '';
  while (j < s.length && s[j] !== quote) {
    if (s[j] === '\n' || s[j] === '\r' || s[j] === '\f') return { value, end: j };
    if (s[j] === '\\') {
      if (j + 1 >= s.length) {
        j++;
        break;
      }
      if (s[j + 1] === '\n' || s[j + 1] === '\f') {
        j += 2;
        continue;
      }
      if (s[j + 1] === '\r') {
        j += s[j + 2] === '\n' ? 3 : 2;
        continue;
      }
      const e = escapeAt(s, j);
      value += e.text;
      j = e.end;
    } else {
      const end = Math.max(runEnd(STRING_RUN, s, j), j + 1); // a run, or the other quote
      value += s.slice(j, end);
      j = end;
    }
  }
  return { value, end: Math.min(j + 1, s.length) };
}

/** The unquoted url( token whose contents start at s[i]: its decoded value and end (after the ")"). */
function urlTokenAt(s: string, i: number): { value: string; end: number } {
  let j = i;
  let value = '';
  while (j < s.length && s[j] !== ')') {
    if (isEscape(s, j)) {
      const e = escapeAt(s, j);
      value += e.text;
      j = e.end;
    } else value += s[j++];
  }
  return { value: value.trim(), end: Math.min(j + 1, s.length) };
}

/** Functions whose string arguments are URLs. */
const URL_FUNCTIONS = /^(?:url|src|image|-webkit-image-set|image-set)$/;

export function sanitizeCss(css: string): string {
  if (!/url|src|image|import|\\/i.test(css)) return css; // none of the names, no escape: no URL
  let out = '';
  let copied = 0;
  const replace = (start: number, end: number, text: string) => {
    out += css.slice(copied, start) + text;
    copied = end;
  };
  const stack: string[] = [];
  let importing = false; // after @import, until its URL
  let i = 0;
  while (i < css.length) {
    const c = css[i];
    if (c === '/' && css[i + 1] === '*') {
      const close = css.indexOf('*/', i + 2);
      i = close < 0 ? css.length : close + 2;
    } else if (c === '"' || c === "'") {
      const str = stringAt(css, i);
      const fn = stack[stack.length - 1];
      if (importing || (fn !== undefined && URL_FUNCTIONS.test(fn))) {
        if (!allowed(str.value, importing)) replace(i, str.end, `"${INERT_URL}"`);
        importing = false;
      }
      i = str.end;
    } else if (c === '@') {
      const at = nameAt(css, i + 1);
      if (at && at.name.toLowerCase() === 'import') importing = true;
      i = at ? at.end : i + 1;
    } else if (isEscape(css, i) || isNameChar(c)) {
      const start = i;
      const id = nameAt(css, i)!;
      i = id.end;
      if (css[i] !== '(') continue;
      const fn = id.name.toLowerCase();
      let k = i + 1;
      while (k < css.length && /[ \t\n\r\f]/.test(css[k])) k++;
      if (fn === 'url' && css[k] !== '"' && css[k] !== "'") {
        const token = urlTokenAt(css, k);
        if (!allowed(token.value, importing)) replace(start, token.end, `url(${INERT_URL})`);
        importing = false;
        i = token.end;
      } else {
        stack.push(fn);
        i++;
      }
    } else {
      if (c === '(') stack.push('(');
      else if (c === ')') stack.pop();
      else if (c === ';' || c === '{' || c === '}') {
        stack.length = 0;
        importing = false;
      }
      i = Math.max(runEnd(INERT_RUN, css, i + 1), i + 1);
    }
  }
  return copied === 0 ? css : out + css.slice(copied);
}

function allowed(url: string, importing: boolean): boolean {
  if (importing) return urlAllowed(url, 'stylesheet');
  return urlAllowed(url, 'image') || urlKind(url) === 'fragment';
}
