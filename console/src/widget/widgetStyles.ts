/** The widget's look, inside its shadow root: nothing of the host page's styles reaches it, nothing of these leaves. */
export const WIDGET_CSS = `
:host { all: initial; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2433; }
* { box-sizing: border-box; }
.launcher { position: fixed; right: 20px; bottom: 20px; width: 56px; height: 56px; border-radius: 50%; border: 0;
  background: #3154d4; color: #fff; font-size: 14px; font-weight: 600; cursor: pointer; box-shadow: 0 4px 16px rgb(0 0 0 / 25%); z-index: 2147483000; }
.launcher:focus-visible, button:focus-visible, textarea:focus-visible { outline: 3px solid #f5b700; outline-offset: 2px; }
.panel { position: fixed; right: 20px; bottom: 88px; width: min(380px, calc(100vw - 40px)); height: min(560px, calc(100vh - 120px));
  display: flex; flex-direction: column; background: #fff; border-radius: 12px; box-shadow: 0 8px 32px rgb(0 0 0 / 25%);
  overflow: hidden; z-index: 2147483000; }
.panel[hidden] { display: none; }
header { display: flex; align-items: center; gap: 8px; padding: 12px 14px; background: #3154d4; color: #fff; }
header h2 { font-size: 15px; margin: 0; flex: 1; }
header button { background: none; border: 0; color: #fff; font-size: 18px; cursor: pointer; }
.log { flex: 1; overflow-y: auto; padding: 12px; display: flex; flex-direction: column; gap: 8px; }
.msg { max-width: 85%; padding: 8px 11px; border-radius: 10px; white-space: pre-wrap; word-wrap: break-word; }
.msg.user { align-self: flex-end; background: #3154d4; color: #fff; }
.msg.assistant { align-self: flex-start; background: #f0f2f7; }
.msg.error { background: #fdecea; color: #8a1c12; }
.sources { margin: 6px 0 0; padding: 0 0 0 16px; font-size: 12px; color: #4a5468; }
.buttons { display: flex; flex-wrap: wrap; gap: 6px; }
.buttons button, .pills button { border: 1px solid #3154d4; color: #3154d4; background: #fff; border-radius: 14px; padding: 4px 10px; cursor: pointer; font: inherit; }
.feedback { display: flex; gap: 4px; margin-top: 4px; align-items: center; font-size: 12px; color: #4a5468; }
.feedback button { background: none; border: 1px solid transparent; border-radius: 6px; cursor: pointer; font-size: 14px; padding: 0 4px; }
.feedback button[aria-pressed="true"] { border-color: #3154d4; }
.pills { display: flex; flex-wrap: wrap; gap: 4px; margin-top: 4px; }
form { display: flex; gap: 8px; padding: 10px; border-top: 1px solid #e3e6ee; }
textarea { flex: 1; resize: none; border: 1px solid #c5cad6; border-radius: 8px; padding: 8px; font: inherit; min-height: 38px; max-height: 120px; }
form button { border: 0; border-radius: 8px; background: #3154d4; color: #fff; padding: 0 14px; cursor: pointer; font: inherit; }
form button:disabled { opacity: .5; cursor: default; }
.typing { color: #4a5468; font-style: italic; }
.note { font-size: 12px; color: #4a5468; text-align: center; padding: 4px 12px; }
`
