export * from './context';
export * from './definition';
export * from './server';
export * from './client';
export * from './call-errors';
export * from './batch-client';
export * from './server-metrics';
export * from './health';
