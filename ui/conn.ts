// The websocket connection to the session (docs/protocol.md): one socket at
// /ws on the page's origin, reconnected with backoff when it drops. A
// connection can also be idle: no socket and no session on the server
// (a page that has not needed one yet, or whose session the server ended:
// reclaimed or expired); it connects again only when asked (connect).

import type { ServerMsg } from "./proto";

export type ConnState = "idle" | "connecting" | "open" | "closed";

export interface ConnEvents {
  message(m: ServerMsg): void;
  state(s: ConnState, detail: string): void;
  /** A fresh session is ready (after every (re)connect). */
  open(): void;
}

export class Conn {
  private ws: WebSocket | null = null;
  private nextId = 1;
  private retry = 0;
  private timer = 0;
  private closedByUs = false;

  constructor(private readonly url: string, private readonly ev: ConnEvents) {}

  static pageURL(): string {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}/ws`;
  }

  connect(): void {
    window.clearTimeout(this.timer);
    this.closedByUs = false;
    this.ev.state("connecting", "connecting…");
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.url);
    } catch (e) {
      this.schedule(String(e));
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 0;
      this.ev.state("open", "connected");
      this.ev.open();
    };
    ws.onmessage = (e: MessageEvent) => {
      if (typeof e.data !== "string") return;
      let m: ServerMsg;
      try {
        m = JSON.parse(e.data) as ServerMsg;
      } catch {
        return;
      }
      this.ev.message(m);
    };
    ws.onclose = (e: CloseEvent) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closedByUs) {
        this.ev.state("closed", "disconnected");
        return;
      }
      this.schedule(e.reason || "connection lost");
    };
    // Errors are followed by close; the close handler reports them.
    ws.onerror = () => {};
  }

  private schedule(why: string): void {
    const delay = Math.min(15000, 500 * 2 ** this.retry);
    this.retry = Math.min(this.retry + 1, 6);
    const secs = Math.round(delay / 1000);
    this.ev.state("closed", `${why} — reconnecting${secs > 0 ? ` in ${secs}s` : ""}`);
    this.timer = window.setTimeout(() => this.connect(), delay);
  }

  /** Goes idle: closes the socket if there is one, stops reconnecting, and holds no session until connect. */
  park(detail: string): void {
    window.clearTimeout(this.timer);
    this.closedByUs = true;
    this.retry = 0;
    const ws = this.ws;
    this.ws = null;
    ws?.close();
    this.ev.state("idle", detail);
  }

  /** Reconnects now (on the user's request). */
  reconnect(): void {
    this.closedByUs = true;
    const ws = this.ws;
    this.ws = null;
    ws?.close();
    this.connect();
  }

  get isOpen(): boolean {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  /** Sends a message with a fresh id; returns the id (0 if not connected). */
  send(msg: Record<string, unknown>): number {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return 0;
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ ...msg, id }));
    return id;
  }
}
