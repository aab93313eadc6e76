export * from './writer';
export * from './relay';
