/** Named errors of the simulator. */

/** A request parameter is missing or malformed: the server answers 400 with this message. */
export class BadParameterError extends Error {
  override readonly name = 'BadParameterError';
  constructor(readonly parameter: string, detail: string) {
    super(`${parameter}: ${detail}`);
  }
}

/** A fault spec string could not be parsed; `part` is the offending piece. */
export class FaultSpecError extends Error {
  override readonly name = 'FaultSpecError';
  constructor(readonly part: string, detail: string) {
    super(`fault spec part "${part}": ${detail}`);
  }
}

/** Real-data files could not be read into a world. */
export class WorldLoadError extends Error {
  override readonly name = 'WorldLoadError';
  constructor(readonly file: string, detail: string) {
    super(`${file}: ${detail}`);
  }
}

/** A mutation named a pin, line, notice, provider or area the world does not have. */
export class UnknownObjectError extends Error {
  override readonly name = 'UnknownObjectError';
  constructor(readonly kind: string, readonly key: string) {
    super(`unknown ${kind}: ${key}`);
  }
}

/** An option of the simulator or its world generator is invalid; `option` names it. */
export class SimulatorOptionError extends Error {
  override readonly name = 'SimulatorOptionError';
  constructor(readonly option: string, detail: string) {
    super(`${option}: ${detail}`);
  }
}
