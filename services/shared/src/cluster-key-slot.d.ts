/** The slot hash Redis Cluster and ioredis use (the package ships no types). */
declare module 'cluster-key-slot' {
  function calculateSlot(key: string | Buffer): number;
  export default calculateSlot;
}
