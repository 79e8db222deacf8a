export const jsonContentType = 'application/json; charset=UTF-8';
export const textContentType = 'text/html; charset=UTF-8';
