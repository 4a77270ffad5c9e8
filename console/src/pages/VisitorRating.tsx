import { fullTime, when } from '../format'
import type { Case } from '../types'

/** The visitor's rating of a closed case: stars, the number, and their note. */
export function VisitorRating({ rating }: { rating: Case['rating'] }) {
  if (!rating) return <p className="rating">The visitor has not rated this case.</p>
  return (
    <figure className="rating" data-testid="case-rating">
      <figcaption title={fullTime(rating.rated)}>
        <span className="stars" role="img" aria-label={`${rating.rating} out of 5 stars`}>
          {'★'.repeat(rating.rating)}
          {'☆'.repeat(5 - rating.rating)}
        </span>{' '}
        Rated {rating.rating}/5 by the visitor · {when(rating.rated)}
      </figcaption>
      {rating.note && <blockquote className="rating-note">{rating.note}</blockquote>}
    </figure>
  )
}
