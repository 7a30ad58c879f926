//! How a host reaches the controller to read: [`WritePath::read`] makes
//! memory hold what a read touches (reading the cold segments opening
//! left unread when that is needed; for a lexical query, only their
//! stored terms, their episodes and the segments holding what it finds:
//! `controller::partial`) and returns the [`Reading`] that borrowing the
//! controller takes; [`Held`] serves what reads no archived
//! message. So a reading method a host adds sees the whole archive without
//! calling anything by hand.

use std::cell::{Ref, RefMut};

use super::{Store, WritePath};
use crate::controller::{Controller, Need, Step};

/// Proof that memory holds what a read needs: only [`WritePath::read`]
/// (and [`WritePath::read_or_partial`], for a read that says it is partial)
/// returns one, and borrowing the controller takes one.
#[must_use]
pub struct Reading(());

/// The controller as it is in memory, for what reads no archived message.
pub struct Held<'a>(Ref<'a, Controller>);

impl Held<'_> {
    pub fn options(&self) -> &crate::controller::Options {
        self.0.options()
    }
    pub fn stats(&self) -> crate::controller::Stats {
        self.0.stats()
    }
    pub fn load_report(&self) -> &crate::store::LoadReport {
        self.0.load_report()
    }
    pub fn count_tokens(&self, text: &str) -> usize {
        self.0.count_tokens(text)
    }
    /// # Errors
    /// See [`Controller::count_messages`].
    pub fn count_messages(&self, messages: &[serde_json::Value], tools: &[serde_json::Value]) -> crate::Result<usize> {
        self.0.count_messages(messages, tools)
    }
    /// # Errors
    /// See [`Controller::budget_aware_max_tokens`].
    pub fn budget_aware_max_tokens(
        &self,
        usd_left: f64,
        model: Option<&str>,
        prompt_tokens: Option<u64>,
        floor: u64,
    ) -> crate::Result<u64> {
        self.0.budget_aware_max_tokens(usd_left, model, prompt_tokens, floor)
    }
    pub fn facts(&self) -> Vec<&crate::semantic::Fact> {
        self.0.facts()
    }
    pub fn fact_history(&self, key: &str) -> Vec<crate::semantic::Fact> {
        self.0.fact_history(key)
    }
    pub fn facts_as_of(&self, as_of: Option<f64>) -> Vec<crate::semantic::Fact> {
        self.0.facts_as_of(as_of)
    }
    /// # Errors
    /// See [`Controller::plan_tool_call`].
    pub fn plan_tool_call(&self, name: &str, args_json: &str) -> crate::Result<crate::controller::tools::ToolPlan> {
        self.0.plan_tool_call(name, args_json)
    }
    /// Whether a read of `need` finds it in memory now.
    pub fn holds(&self, need: Need<'_>) -> bool {
        self.0.holds(need)
    }
}

impl<S: Store> WritePath<S> {
    /// Makes memory hold what a read of `need` touches (reading the cold segments
    /// segments opening left unread if that is needed): the proof to
    /// borrow the controller with ([`WritePath::controller`]).
    ///
    /// # Errors
    /// The store's, `FORMAT_TOO_NEW`; memory holds what it held and the next read tries
    /// again (a query's read of the cold segments, freed before a whole read, is
    /// then read whole by the next query).
    pub async fn read(&self, need: Need<'_>) -> Result<Reading, S::Error> {
        // A lexical query reads the cold segments' terms, then decodes the
        // segments holding what it finds (`controller::partial`): two or
        // three steps; more, and the cold segments are read whole.
        if !matches!(need, Need::Query(_)) {
            if !self.borrowed().holds(need) {
                self.load_cold().await?;
            }
            return Ok(Reading(()));
        }
        for _ in 0..4 {
            let step = self.borrowed_mut().read_step(need);
            match step {
                Step::Held => return Ok(Reading(())),
                Step::Whole => break,
                Step::Index => {
                    if !self.index_cold().await? {
                        break;
                    }
                }
                Step::Decode(wanted) => {
                    let keys: Vec<_> = wanted.iter().map(|(k, _)| k.clone()).collect();
                    let mut loader = crate::store::Loader::values(wanted);
                    for key in &keys {
                        self.store.load_into(key, &mut loader).await?;
                    }
                    if !self.borrowed_mut().cache_decoded(loader.into_values()) {
                        break;
                    }
                }
            }
        }
        self.load_cold().await?;
        Ok(Reading(()))
    }

    /// Reads the cold segments for lexical queries (`store::indexing`); `false`
    /// when it must be read whole instead.
    ///
    /// # Errors
    /// The store's, `FORMAT_TOO_NEW`; memory is unchanged.
    async fn index_cold(&self) -> Result<bool, S::Error> {
        let prefix = crate::store::cold_prefix(&self.borrowed().options().namespace);
        let mut loader = self.borrowed().indexing_loader();
        self.store.load_into(&prefix, &mut loader).await?;
        Ok(self.borrowed_mut().finish_indexing(loader))
    }

    /// [`WritePath::read`] for a read that can go on with what memory holds
    /// and say so (a context whose archive could not be read): the proof,
    /// and why memory may not hold everything.
    pub async fn read_or_partial(&self, need: Need<'_>) -> (Reading, Option<S::Error>) {
        (Reading(()), self.read(need).await.err())
    }

    /// The controller, for a read [`WritePath::read`] made ready. Not held across an `await`.
    pub fn controller(&self, _: &Reading) -> Ref<'_, Controller> {
        self.borrowed()
    }

    /// [`WritePath::controller`], for a read that updates caches (the search index, counts).
    pub fn controller_mut(&self, _: &Reading) -> RefMut<'_, Controller> {
        self.borrowed_mut()
    }

    /// The controller as memory holds it, for what reads no archived message.
    pub fn held(&self) -> Held<'_> {
        Held(self.borrowed())
    }
}
