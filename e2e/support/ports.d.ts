/** A loopback port for a process a test starts: free, below the ephemeral range (ports.js). */
export function freePort(): Promise<number>;
