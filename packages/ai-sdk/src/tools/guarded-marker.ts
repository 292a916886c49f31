/**
 * The key `guardTools` sets in a tool's `providerOptions.tracewarden`: the model layer sees it
 * in `params.tools`, so the middleware knows the tool refuses a blocked call itself. Providers
 * ignore options under a provider key that is not theirs.
 * @internal
 */
export const guardedMarker = 'guarded';
