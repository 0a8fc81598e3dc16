/** The picture of an account or end user that has none of its own: an asset the server serves. */
export const defaultPictureUrl = (apiUrl: string) => `${apiUrl}/assets/default-avatar.svg`
