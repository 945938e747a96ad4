// Labels of clickable nodes, from rrweb's serialised DOM (a FullSnapshot's tree, a mutation's flat
// `adds`): each clickable element (docs/activity.md) and every node inside it get the element's text
// and a short selector, so a click on the node (or on a span inside a button) can be named later.
// Text is what the recording holds: masked text stays masked.
import { clip, wellFormed } from '../batch-summary';

export interface NodeLabel {
  nodeId: number;
  /** Tag of the clickable element the node belongs to. */
  tag: string;
  text: string;
  selector: string;
}

const CLICKABLE_TAGS = new Set(['a', 'button', 'input', 'select', 'textarea', 'label', 'summary', 'option']);
const CLICKABLE_ROLES = new Set(['button', 'link', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'checkbox', 'radio', 'switch', 'option']);
export const MAX_LABEL_TEXT = 100;
const MAX_SELECTOR = 120;
/** Labels kept per batch: a huge snapshot is not worth unbounded rows. */
export const MAX_LABELS_PER_BATCH = 5000;

interface MirrorNode {
  id: number;
  parentId?: number;
  tag?: string;
  attrs?: Record<string, unknown>;
  text?: string;
  children: number[];
}

const attr = (n: MirrorNode, name: string) => (typeof n.attrs?.[name] === 'string' ? (n.attrs[name] as string).trim() : '');

export function isClickable(n: { tag?: string; attrs?: Record<string, unknown> }): boolean {
  if (!n.tag) return false;
  if (CLICKABLE_TAGS.has(n.tag)) return true;
  const role = typeof n.attrs?.role === 'string' ? n.attrs.role.toLowerCase() : '';
  return CLICKABLE_ROLES.has(role) || n.attrs?.onclick !== undefined;
}

/** tag, #id and up to two classes (rrweb's own rr-* classes left out): `button#pay.btn.primary`. */
export function shortSelector(tag: string, attrs: Record<string, unknown> = {}): string {
  let s = tag;
  const id = typeof attrs.id === 'string' ? attrs.id.trim() : '';
  if (id && /^[A-Za-z][\w-]*$/.test(id)) s += `#${id}`;
  const classes = typeof attrs.class === 'string' ? attrs.class.split(/\s+/).filter((c) => /^[A-Za-z_-][\w-]*$/.test(c) && !c.startsWith('rr-')) : [];
  for (const c of classes.slice(0, 2)) s += `.${c}`;
  return clip(s, MAX_SELECTOR);
}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

export class NodeLabeller {
  private readonly nodes = new Map<number, MirrorNode>();
  private readonly order: number[] = [];

  /**
   * Adds a FullSnapshot's tree; returns the document title it holds ('' if none). Only what a label
   * can come from is kept: clickable elements with everything inside them, and the title. Another
   * node would never be labelled, and a node later added under it is a root of its own here, labelled
   * the same (walking a 76 000-node snapshot with nothing clickable kept every node, and its cost was
   * most of a large batch's preparation).
   */
  addSnapshot(root: unknown): string {
    let title: MirrorNode | undefined;
    const walk = (raw: unknown, parentId: number | undefined, inside: boolean, depth: number) => {
      if (!raw || typeof raw !== 'object') return;
      const r = raw as { type?: unknown; tagName?: unknown; attributes?: unknown; childNodes?: unknown };
      let keep = inside;
      if (!keep && r.type === 2 && typeof r.tagName === 'string') {
        const tag = r.tagName.toLowerCase();
        keep =
          (tag === 'title' && !title) ||
          isClickable({ tag, attrs: r.attributes && typeof r.attributes === 'object' ? (r.attributes as Record<string, unknown>) : {} });
      }
      const n = keep ? this.add(raw, parentId) : undefined;
      if ((keep && !n) || depth > 500) return;
      if (n?.tag === 'title' && !title) title = n;
      // Below a node not kept, a kept node is a root (its parent unknown here, whatever is added later).
      if (Array.isArray(r.childNodes)) for (const c of r.childNodes) walk(c, n?.id, keep, depth + 1);
    };
    walk(root, undefined, false, 0);
    return title ? clip(this.textOf(title), MAX_LABEL_TEXT) : '';
  }

  /** Adds a mutation's `adds` (each node serialised without its children, which come as adds of their own). */
  addMutation(adds: unknown[]): void {
    for (const a of adds) {
      if (!a || typeof a !== 'object') continue;
      const { parentId, node } = a as { parentId?: unknown; node?: unknown };
      this.add(node, typeof parentId === 'number' ? parentId : undefined);
    }
  }

  private add(raw: unknown, parentId: number | undefined): MirrorNode | undefined {
    if (!raw || typeof raw !== 'object') return undefined;
    const r = raw as { id?: unknown; type?: unknown; tagName?: unknown; attributes?: unknown; textContent?: unknown };
    if (typeof r.id !== 'number') return undefined;
    const n: MirrorNode = { id: r.id, parentId, children: [] };
    if (r.type === 2 && typeof r.tagName === 'string') {
      n.tag = r.tagName.toLowerCase();
      n.attrs = r.attributes && typeof r.attributes === 'object' ? (r.attributes as Record<string, unknown>) : {};
    } else if (r.type === 3 && typeof r.textContent === 'string') n.text = r.textContent;
    const seen = this.nodes.has(n.id);
    if (!seen) this.order.push(n.id);
    this.nodes.set(n.id, n);
    const parent = parentId === undefined ? undefined : this.nodes.get(parentId);
    // Only a node seen before can be among a parent's children already: looking for every new one
    // made a snapshot's wide list quadratic (9 600 rows of one list: 50 ms).
    if (parent && !(seen && parent.children.includes(n.id))) parent.children.push(n.id);
    return n;
  }

  private textOf(n: MirrorNode, budget = { chars: 2000 }): string {
    if (n.text !== undefined) {
      budget.chars -= n.text.length;
      return n.text;
    }
    if (n.tag === 'script' || n.tag === 'style') return '';
    let s = '';
    for (const id of n.children) {
      if (budget.chars <= 0) break;
      const c = this.nodes.get(id);
      if (c) s += ' ' + this.textOf(c, budget);
    }
    return collapse(s);
  }

  private labelOf(n: MirrorNode): Omit<NodeLabel, 'nodeId'> {
    const tag = n.tag ?? '';
    let text = '';
    if (tag === 'input') {
      const type = attr(n, 'type').toLowerCase();
      text = ['submit', 'button', 'reset'].includes(type) ? attr(n, 'value') : '';
      text ||= attr(n, 'aria-label') || attr(n, 'placeholder') || attr(n, 'title');
    } else text = this.textOf(n) || attr(n, 'aria-label') || attr(n, 'title');
    return { tag, text: wellFormed(clip(collapse(text), MAX_LABEL_TEXT)), selector: wellFormed(shortSelector(tag, n.attrs)) };
  }

  /** Every clickable element seen and the nodes inside it, each with the nearest clickable element's label. */
  labels(): NodeLabel[] {
    const out = new Map<number, NodeLabel>();
    const visit = (n: MirrorNode, owner: Omit<NodeLabel, 'nodeId'> | undefined, depth: number) => {
      if (out.size >= MAX_LABELS_PER_BATCH || depth > 500) return;
      const own = isClickable(n) ? this.labelOf(n) : owner;
      if (own) out.set(n.id, { nodeId: n.id, ...own });
      for (const id of n.children) {
        const c = this.nodes.get(id);
        if (c) visit(c, own, depth + 1);
      }
    };
    for (const id of this.order) {
      const n = this.nodes.get(id)!;
      if (n.parentId === undefined || !this.nodes.has(n.parentId)) visit(n, undefined, 0);
    }
    return [...out.values()];
  }
}
