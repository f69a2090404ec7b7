package letters

// FailureServer is the failure reason of an item whose served reader's
// server failed after its retries (a 5xx, a 429, a timeout, a torn reply
// each time). A served reader's Score returns no row (nil) for such a
// prompt; the harness then fails that item alone with this reason, as it
// fails the items of a corrupt video, and stores no answer for it, so that
// a resumed run asks the server again once it has recovered.
const FailureServer = "server"
