@cache @cache_ram @requires.cache_ram @fresh_server
Feature: RAM prompt cache
  When a new prompt takes over a slot, the prompt that was there is copied into the RAM prompt cache
  (--cache-ram MiB, 0 disables it). A later request for that prompt loads it back from RAM instead of
  processing it again. The server looks in the cache for completions only, when it picks a slot by least
  recent use or would keep less than half of the slot's tokens, and loads an entry only if the new prompt
  shares at least a quarter of it; the two prompts here share no token, so the choice is unambiguous.

  Background: One slot, two prompts without a common prefix
    Given a server listening on localhost:8080
    And   a model file default
    And   1 slots
    And   512 KV cache size
    And   prompt A is "Once upon a time in a land far away, there lived a brave knight who traveled across mountains and rivers to find the legendary golden sword hidden deep within the enchanted forest of whispers."
    And   prompt B is "The quick brown fox jumps over the lazy dog."

  Scenario: A prompt evicted from its slot comes back from the RAM cache
    Given the server option --cache-ram set to 64
    And   a sliding-window model keeps its whole context
    Then  the server is starting
    Given the model uses no sliding-window attention
    When  prompt A is evaluated
    And   prompt B is evaluated
    And   prompt A is evaluated
    Then  prompt A was served from the cache

  Scenario: Without a RAM cache, an evicted prompt is processed again
    Given the server option --cache-ram set to 0
    Then  the server is starting
    When  prompt A is evaluated
    And   prompt B is evaluated
    And   prompt A is evaluated
    Then  prompt A was processed in full
