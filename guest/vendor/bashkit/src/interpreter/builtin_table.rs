//! filestore: an interpreter's builtin commands, as one table made once and shared
//! by every interpreter (bashkit's builtins that hold nothing, unit structs) under the
//! interpreter's own entries (the builtins made from its configuration, and the
//! embedder's), which take precedence by name.
//!
//! Why: filestore makes an interpreter per call, and each one built and then dropped
//! a map of ~220 builtins, a `String`, an `Arc` and a hash each: about half of a
//! trivial command's time inside the component. Only unit structs are shared (the
//! registration asserts their size is zero): one holds no state of its own, so
//! sharing its instance is the same as making a new one; a builtin with state or
//! configuration (`source`, `date`, `find`, the embedder's) stays the interpreter's.
//!
//! Tested through filestore's shell (`guest/src/shell/tests.rs`), which runs it.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use crate::builtins::Builtin;

/// The shared builtins, by name.
pub(crate) type SharedBuiltins = HashMap<&'static str, Arc<dyn Builtin>>;

/// See the module docs.
#[derive(Clone)]
pub(crate) struct BuiltinTable {
    shared: Arc<SharedBuiltins>,
    own: HashMap<String, Arc<dyn Builtin>>,
}

impl BuiltinTable {
    /// The table over the shared builtins that `make` registers (called once per
    /// process), with no entries of its own yet.
    pub(crate) fn over_shared(make: fn() -> SharedBuiltins) -> Self {
        static SHARED: OnceLock<Arc<SharedBuiltins>> = OnceLock::new();
        Self {
            shared: Arc::clone(SHARED.get_or_init(|| Arc::new(make()))),
            own: HashMap::with_capacity(64),
        }
    }

    /// Adds or replaces the interpreter's own `name`.
    pub(crate) fn insert(&mut self, name: String, builtin: Arc<dyn Builtin>) {
        self.own.insert(name, builtin);
    }

    /// Keeps only the builtins whose name `keep` accepts (the shared ones become the
    /// interpreter's own first, since the shared table is everyone's).
    pub(crate) fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        for (name, builtin) in self.shared.iter() {
            if !self.own.contains_key(*name) {
                self.own.insert((*name).to_string(), Arc::clone(builtin));
            }
        }
        self.shared = Arc::new(SharedBuiltins::new());
        self.own.retain(|name, _| keep(name));
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Arc<dyn Builtin>> {
        self.own.get(name).or_else(|| self.shared.get(name))
    }

    pub(crate) fn contains_key(&self, name: &str) -> bool {
        self.own.contains_key(name) || self.shared.contains_key(name)
    }

    /// Every name once (an own entry hides the shared one of its name), in no order.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> + Clone {
        self.own.keys().map(String::as_str).chain(self.shared_visible().map(|(n, _)| *n))
    }

    /// Every builtin once, as [`Self::names`] lists them.
    pub(crate) fn values(&self) -> impl Iterator<Item = &Arc<dyn Builtin>> {
        self.own.values().chain(self.shared_visible().map(|(_, b)| b))
    }

    /// The interpreter's own entries (what a copy of the interpreter copies: the
    /// shared table is not copied), for the memory a fork is charged.
    pub(crate) fn own_entries(&self) -> &HashMap<String, Arc<dyn Builtin>> {
        &self.own
    }

    fn shared_visible(&self) -> impl Iterator<Item = (&&'static str, &Arc<dyn Builtin>)> + Clone {
        self.shared.iter().filter(|(name, _)| !self.own.contains_key(**name))
    }
}
