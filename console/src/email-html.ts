// An e-mail's HTML is the sender's: it is cleaned here and then shown in a sandboxed frame with
// no scripts and an opaque origin (never the console's), behind a policy that loads nothing from
// the network (no tracking pixels, no remote styles).

const DROPPED =
  'script,iframe,frame,frameset,object,embed,applet,link,meta,base,form,input,button,textarea,select'
const POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:"

/** The HTML without active content: no scripts, frames, forms, event handlers or script URLs. */
export function sanitiseEmailHTML(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html')
  for (const node of doc.querySelectorAll(DROPPED)) node.remove()
  for (const element of doc.querySelectorAll('*')) {
    for (const attribute of [...element.attributes]) {
      const name = attribute.name.toLowerCase()
      const value = attribute.value.trim().toLowerCase()
      if (name.startsWith('on') || /^(javascript|vbscript|data:text\/html)/.test(value))
        element.removeAttribute(attribute.name)
    }
  }
  return `<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="${POLICY}"><base target="_blank"></head><body>${doc.body.innerHTML}</body></html>`
}
