/** Malformed input: there is no decision (spec/FORMAT.md §7 step 1). */
export class Malformed extends Error {
  /** For a request's discharge: its index in the request, from 0. */
  discharge?: number;
  constructor(message: string, discharge?: number) {
    super("tickettool: malformed: " + message);
    this.name = "Malformed";
    if (discharge !== undefined) this.discharge = discharge;
  }
}
