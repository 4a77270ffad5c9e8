/**
 * Rung once new deliveries have been committed (see Database.afterCommit): the delivery worker
 * looks for them at once instead of at its next poll, so that a bot hears of a visitor's message
 * without waiting for one, and an idle worker can poll rarely.
 */
export class DeliveryBell {
  private listener: () => void = () => {}

  readonly ring = (): void => this.listener()

  /** The worker of this process; one at a time. */
  listen(listener: () => void): void {
    this.listener = listener
  }
}
