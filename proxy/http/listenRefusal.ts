/** Why the system refused Airlock its port at listen, as far as the error code tells. */
type ListenRefusal = 'in_use' | 'blocked';

/**
 * EADDRINUSE: another program listens there. EACCES and EPERM: the system forbids the port. On
 * Windows that is a port in one of the ranges Windows holds back for Hyper-V, WSL 2 or Docker
 * (`netsh int ipv4 show excludedportrange protocol=tcp` lists them; they can move at a reboot or
 * when winnat restarts: lmstudio-ai/lmstudio-js#336, microsoft/WSL#5514), or one another program
 * bound for itself alone (SO_EXCLUSIVEADDRUSE), both reported as WSAEACCES, which Node names EACCES
 * ("listen EACCES: permission denied 127.0.0.1:8000", ElectronNET/Electron.NET#1006); netstat shows
 * no listener for a reserved port. On Linux and macOS it is a port under 1024 without privileges,
 * or a security module's rule (EPERM). Any other code is no refusal of the port.
 */
export function listenRefusal(code: string | undefined): ListenRefusal | null {
  if (code === 'EADDRINUSE') return 'in_use';
  if (code === 'EACCES' || code === 'EPERM') return 'blocked';
  return null;
}

export class PortInUseError extends Error {
  readonly port: number;
  readonly host: string;
  /** Only the fact: who holds the port and what to do differ between the desktop app and `airlock serve`, which each say it. */
  constructor(port: number, host: string) {
    super(`Port ${port} on ${host} is already in use, so Airlock cannot listen there.`);
    this.name = 'PortInUseError';
    this.port = port;
    this.host = host;
  }
}

export class PortBlockedError extends Error {
  readonly port: number;
  readonly host: string;
  readonly code: string;
  /** The fact and where to look; the way out (another port) differs between the desktop app and `airlock serve`. */
  constructor(port: number, host: string, code: string) {
    super(
      `Port ${port} on ${host} is blocked or reserved, so Airlock cannot listen there (${code}), even if no program listens on it. ` +
        `On Windows, see whether it falls in a reserved range with \`netsh int ipv4 show excludedportrange protocol=tcp\` ` +
        '(Hyper-V, WSL 2 and Docker reserve ranges; `net stop winnat` then `net start winnat`, as administrator, often frees them), ' +
        'or whether a program holds it for itself alone; elsewhere, ports under 1024 need administrator rights.',
    );
    this.name = 'PortBlockedError';
    this.port = port;
    this.host = host;
    this.code = code;
  }
}

/** The error a failed listen rejects with: the port's refusal named, any other error as it came. */
export function listenFailure(error: NodeJS.ErrnoException, port: number, host: string): Error {
  switch (listenRefusal(error.code)) {
    case 'in_use':
      return new PortInUseError(port, host);
    case 'blocked':
      return new PortBlockedError(port, host, error.code as string);
    default:
      return error;
  }
}
