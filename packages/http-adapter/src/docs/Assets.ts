/** The default profile picture, served at `/assets/default-avatar.svg` until an account commits its own. */
export const defaultAvatarSvg =
  `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128">` +
  `<rect width="128" height="128" rx="64" fill="#d7dde8"/><circle cx="64" cy="50" r="24" fill="#8a97ab"/>` +
  `<path d="M22 112c6-24 24-36 42-36s36 12 42 36" fill="#8a97ab"/></svg>`
