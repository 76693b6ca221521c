/** The class of characters no form holds: any of them leads the automaton back to its start. */
export const NO_CLASS = 0;

/**
 * The forms as one Aho-Corasick automaton over ASCII (a key is printable ASCII, and so are its
 * encodings; any other character leads back to the start). A state is the longest end of the
 * text read so far that begins some form: what a stream must hold back.
 */
export class FormAutomaton {
  readonly classOf = new Uint8Array(128);
  readonly stride: number;
  readonly next: Uint16Array | Uint32Array;
  readonly depth: Uint16Array;
  /** Length of the form that ends at this state, 0 if none does. */
  readonly matchChars: Uint16Array;
  /** 1 where the text held covers at least half of every form it could still become. */
  readonly maskOnBreak: Uint8Array;
  /** The characters a form begins with: text holding none of them leaves the start state untouched. */
  readonly firstChars: readonly string[];

  constructor(forms: readonly string[]) {
    this.firstChars = [...new Set(forms.map((form) => form.charAt(0)))];
    let classes = 1;
    for (const form of forms) {
      for (let index = 0; index < form.length; index += 1) {
        const code = form.charCodeAt(index);
        if (code < 128 && this.classOf[code] === NO_CLASS) this.classOf[code] = classes++;
      }
    }
    this.stride = classes;
    const trie: Map<number, number>[] = [new Map()];
    const depth = [0];
    const terminal = [0];
    const shortestForm = [Number.POSITIVE_INFINITY];
    for (const form of forms) {
      let state = 0;
      for (let index = 0; index < form.length; index += 1) {
        const cls = this.classOf[form.charCodeAt(index)] ?? NO_CLASS;
        let child = trie[state]!.get(cls);
        if (child === undefined) {
          child = trie.length;
          trie.push(new Map());
          depth.push(depth[state]! + 1);
          terminal.push(0);
          shortestForm.push(Number.POSITIVE_INFINITY);
          trie[state]!.set(cls, child);
        }
        state = child;
        shortestForm[state] = Math.min(shortestForm[state]!, form.length);
      }
      terminal[state] = form.length;
    }
    const states = trie.length;
    // Two bytes a cell while they do: the table then fits a core's first-level cache.
    this.next = states < 65_536 ? new Uint16Array(states * this.stride) : new Uint32Array(states * this.stride);
    this.depth = Uint16Array.from(depth);
    this.matchChars = new Uint16Array(states);
    this.maskOnBreak = new Uint8Array(states);
    const fail = new Uint32Array(states);
    // Breadth first, so a state's fallback (shorter) is complete before the state itself.
    const queue: number[] = [];
    for (const [cls, child] of trie[0]!) {
      this.next[cls] = child;
      queue.push(child);
    }
    for (let head = 0; head < queue.length; head += 1) {
      const state = queue[head]!;
      this.matchChars[state] = terminal[state]! || this.matchChars[fail[state]!]!;
      this.maskOnBreak[state] = depth[state]! * 2 >= shortestForm[state]! ? 1 : 0;
      for (let cls = 0; cls < this.stride; cls += 1) {
        const child = trie[state]!.get(cls);
        const fallback = this.next[fail[state]! * this.stride + cls]!;
        if (child === undefined) {
          this.next[state * this.stride + cls] = fallback;
        } else {
          fail[child] = fallback;
          this.next[state * this.stride + cls] = child;
          queue.push(child);
        }
      }
    }
  }

  /** Whether the text holds a character a form begins with (a native search per such character). */
  mayBeginFormIn(text: string): boolean {
    for (const first of this.firstChars) if (text.includes(first)) return true;
    return false;
  }

  step(state: number, code: number): number {
    return this.next[state * this.stride + (code < 128 ? this.classOf[code]! : NO_CLASS)]!;
  }

  /** The state after reading `text` from `from`: how long an end of it could still begin a form. */
  stateAfter(text: string, from: number): number {
    let state = 0;
    for (let index = from; index < text.length; index += 1) state = this.step(state, text.charCodeAt(index));
    return state;
  }
}
