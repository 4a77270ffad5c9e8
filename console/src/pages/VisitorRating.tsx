import { fullTime, when } from '../format'
import { texts } from '../texts'
import type { Case } from '../types'

/** The visitor's rating of a closed case: stars, the number, and their note. */
export function VisitorRating({ rating }: { rating: Case['rating'] }) {
  if (!rating) return <p className="rating">{texts.rating.none}</p>
  return (
    <figure className="rating" data-testid="case-rating">
      <figcaption title={fullTime(rating.rated)}>
        <span className="stars" role="img" aria-label={texts.rating.stars(rating.rating)}>
          {'★'.repeat(rating.rating)}
          {'☆'.repeat(5 - rating.rating)}
        </span>{' '}
        {texts.rating.rated(rating.rating)} · {when(rating.rated)}
      </figcaption>
      {rating.note && <blockquote className="rating-note">{rating.note}</blockquote>}
    </figure>
  )
}
