export * from './consumer-lag';
export * from './outbox-backlog';
export * from './scrape-read';
// Services declare their metrics with the same prom-client the ops port serves.
export { Counter, Gauge, Histogram, type Registry } from 'prom-client';
