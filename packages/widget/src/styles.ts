// The widget's styles, adopted by its shadow root as a constructed stylesheet: nothing leaks into
// the page or in from it, and a strict Content-Security-Policy (no 'unsafe-inline') allows it
// (CSP governs <style> elements and style attributes, not the CSSOM).
const CSS = `
:host { all: initial; }
[hidden] { display: none !important; }
* { box-sizing: border-box; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
.launcher { position: fixed; bottom: 20px; width: 56px; height: 56px; border-radius: 50%; border: 0;
  background: var(--parley-color); color: #fff; cursor: pointer; box-shadow: 0 4px 14px rgba(0,0,0,.25);
  z-index: 2147483646; display: flex; align-items: center; justify-content: center; }
.launcher svg { width: 28px; height: 28px; fill: currentColor; }
.launcher:focus-visible, button:focus-visible, textarea:focus-visible, input:focus-visible {
  outline: 3px solid #1a73e8; outline-offset: 2px; }
.right { right: 20px; } .left { left: 20px; }
.panel { position: fixed; bottom: 88px; width: 370px; max-width: calc(100vw - 16px);
  height: 560px; max-height: calc(100vh - 104px); background: #fff; color: #1d1d1f; border-radius: 14px;
  box-shadow: 0 8px 30px rgba(0,0,0,.25); display: flex; flex-direction: column; overflow: hidden;
  z-index: 2147483647; font-size: 15px; }
.panel[hidden] { display: none; }
@media (max-width: 480px) {
  .panel { inset: 0; width: 100vw; max-width: 100vw; height: 100%; max-height: 100%; border-radius: 0; }
}
.head { background: var(--parley-color); color: #fff; padding: 12px 14px; display: flex;
  align-items: center; justify-content: space-between; }
.head h2 { margin: 0; font-size: 17px; font-weight: 600; }
.head button { background: transparent; color: #fff; border: 0; font-size: 22px; cursor: pointer; width: 36px; height: 36px; }
.log { flex: 1; min-height: 140px; overflow-y: auto; padding: 12px; display: flex; flex-direction: column; gap: 8px; background: #f6f7f9; }
.empty { color: #555; text-align: center; margin: auto 12px; }
.msg { max-width: 85%; display: flex; flex-direction: column; gap: 2px; }
.msg .who { font-size: 12px; color: #555; }
.msg .bubble { padding: 8px 11px; border-radius: 12px; white-space: pre-wrap; overflow-wrap: anywhere; background: #fff; border: 1px solid #e3e5e8; }
.msg.mine { align-self: flex-end; align-items: flex-end; }
.msg.mine .bubble { background: var(--parley-color); color: #fff; border-color: transparent; }
.msg .state { font-size: 11px; color: #666; }
.system { align-self: center; font-size: 12px; color: #555; text-align: center; }
.choices { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 4px; }
.choices button, .rating button, .closed button { border: 1px solid var(--parley-color); color: var(--parley-color);
  background: #fff; border-radius: 16px; padding: 6px 12px; cursor: pointer; font-size: 14px; }
.choices button:disabled { opacity: .5; cursor: default; }
.section { width: 100%; font-size: 12px; color: #555; margin-top: 4px; }
.typing { font-size: 12px; color: #555; padding: 0 14px 4px; min-height: 18px; }
.offline { font-size: 12px; background: #fff4ce; color: #5c4400; padding: 6px 12px; }
.offline[hidden] { display: none; }
form.composer { display: flex; gap: 8px; padding: 10px; border-top: 1px solid #e3e5e8; }
form.composer textarea { flex: 1; resize: none; border: 1px solid #c9ccd1; border-radius: 10px; padding: 8px; font-size: 15px; min-height: 40px; max-height: 120px; }
form.composer button { background: var(--parley-color); color: #fff; border: 0; border-radius: 10px; padding: 0 14px; cursor: pointer; font-size: 15px; }
form.composer button.attach { background: transparent; color: var(--parley-color); padding: 0 6px; }
.attach svg { width: 22px; height: 22px; display: block; fill: none; stroke: currentColor; stroke-width: 2; stroke-linecap: round; stroke-linejoin: round; }
.bubble .image, .bubble img { display: block; max-width: 100%; height: auto; border-radius: 8px; }
.bubble .file { display: block; color: inherit; text-decoration: underline; }
.msg .state.failed { color: #b3261e; }
.closed { flex: none; max-height: 60%; overflow-y: auto; padding: 10px 12px; border-top: 1px solid #e3e5e8;
  display: flex; flex-direction: column; gap: 8px; font-size: 14px; }
.closed p { margin: 0; }
.closed .notice { font-weight: 600; }
/* Notices take the focus only to be read from there: no ring, they are not controls. */
.closed p[tabindex="-1"]:focus { outline: none; }
.rate { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 10px; }
.rate textarea { width: 100%; border: 1px solid #c9ccd1; border-radius: 10px; padding: 8px; font-size: 14px;
  min-height: 58px; resize: vertical; }
.rating { display: flex; gap: 2px; }
.closed .rating button { border: 0; background: transparent; border-radius: 6px; padding: 0 3px; font-size: 24px;
  line-height: 1.2; color: #6b7280; }
.closed .rating button.lit { color: var(--parley-color); }
.closed .rating button[aria-pressed="true"] { text-decoration: underline; }
.closed .send-rating { margin-left: auto; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`

export function styleSheet(): CSSStyleSheet {
  const sheet = new CSSStyleSheet()
  sheet.replaceSync(CSS)
  return sheet
}
