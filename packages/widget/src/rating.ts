import { h } from './dom.js'
import type { Texts } from './texts.js'

/**
 * The rating form of a closed case: five buttons named by what they rate, an optional note, and
 * Send. Rated, the form gives way to `thanks()`, which takes the focus the Send button had.
 */
export function ratingForm(
  texts: Texts,
  rate: (rating: number, note: string) => Promise<void>,
  thanks: () => HTMLElement,
): HTMLElement {
  let rating = 0
  const stars = [1, 2, 3, 4, 5].map((n) => {
    const star = h('button', { type: 'button', 'aria-pressed': 'false', 'aria-label': texts.stars(n) }, '★')
    star.addEventListener('click', () => {
      rating = n
      for (const [i, other] of stars.entries()) {
        other.setAttribute('aria-pressed', String(i + 1 === n))
        other.classList.toggle('lit', i < n)
      }
    })
    return star
  })
  const note = h('textarea', {
    'aria-label': texts.note,
    placeholder: texts.note,
    rows: '2',
    maxlength: '1000',
  })
  const send = h('button', { type: 'button', class: 'send-rating' }, texts.sendRating)
  const form = h(
    'div',
    { class: 'rate' },
    h('p', { id: 'parley-rate' }, texts.rate),
    h('div', { class: 'rating', role: 'group', 'aria-labelledby': 'parley-rate' }, ...stars),
    note,
    send,
  )
  send.addEventListener('click', async () => {
    if (rating === 0) return stars[0]?.focus()
    send.disabled = true
    await rate(rating, note.value).then(
      () => {
        const said = thanks()
        form.replaceWith(said)
        said.focus()
      },
      () => {
        send.disabled = false
      },
    )
  })
  return form
}
