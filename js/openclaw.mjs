// The OpenClaw extension entry (package.json "openclaw.extensions"): OpenClaw imports it and
// calls `register(api)` on the default export. The plugin itself is ./openclaw.cjs.
import openclaw from "./openclaw.cjs";

export default openclaw.plugin;
