/** The API version reported in Service-Version, GET / and webhook bodies. */
export const API_VERSION = '2026-10-18';
