/**
 * A running sum of costs with Neumaier's compensation, the way SQLite's TOTAL() adds the log's
 * costs: 0.1 + 0.2 is 0.3 here as there, and a million costs of a few millionths of a credit add
 * up without drifting. Costs are never rounded to make sums look tidy: rounding each sum to a
 * fixed step drops every cost below half that step.
 */
export class CreditSum {
  #sum: number;
  #compensation = 0;

  constructor(startCredits = 0) {
    this.#sum = startCredits;
  }

  add(credits: number): void {
    const total = this.#sum + credits;
    this.#compensation += Math.abs(this.#sum) >= Math.abs(credits) ? this.#sum - total + credits : credits - total + this.#sum;
    this.#sum = total;
  }

  get credits(): number {
    return this.#sum + this.#compensation;
  }
}
