export * from './writer';
export * from './relay';
export * from './sequence';
export * from './retention';
