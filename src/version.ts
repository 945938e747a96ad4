/** The API version reported in /openapi.json (info.version) and the X-Tapedeck-Api-Version header. */
export const API_VERSION = '1.0.0';
