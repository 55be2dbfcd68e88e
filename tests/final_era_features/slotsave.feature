# Final-era phrases: slot save, restore and erase (HF file stories260K.gguf, see server.feature).
# The prompts keep their quotes, as the 2024 feature sent them; the model may end such a prompt at once,
# so EOS is ignored. Prompt token counts are the model's: see the Examples tables.
@llama.cpp
@slotsave
Feature: llama.cpp server slot management

  Background: Server startup
    Given a server listening on localhost:8080
    And   a model file tinyllamas/stories260K.gguf from HF repo ggml-org/models
    And   a model file test-model.gguf
    And   prompt caching is enabled
    And   2 slots
    And   . as slot save path
    And   2048 KV cache size
    And   42 as server seed
    And   24 max tokens to predict
    And   the request field ignore_eos is true
    Then  the server is starting
    Then  the server is healthy

  Scenario Outline: Save and Restore Slot
    # First prompt in slot 1 should be fully processed
    Given a user prompt "What is the capital of France?"
    And   using slot id 1
    And   a completion request with no api error
    Then  24 tokens are predicted
    And   <n_prompt> prompt tokens are processed
    When  the slot 1 is saved with filename "slot1.bin"
    Then  the server responds with status code 200
    # Since we have cache, this should only process the last tokens
    Given a user prompt "What is the capital of Germany?"
    And   a completion request with no api error
    Then  24 tokens are predicted
    And   <n_prompt_cached> prompt tokens are processed
    # Loading the original cache into slot 0, only the last prompt token is processed
    When  the slot 0 is restored with filename "slot1.bin"
    Then  the server responds with status code 200
    Given a user prompt "What is the capital of France?"
    And   using slot id 0
    And   a completion request with no api error
    Then  24 tokens are predicted
    And   1 prompt tokens are processed

    @model.smollm2-135m
    Examples: SmolLM2-135M: 8 tokens, the last 2 differ between France and Germany
      | n_prompt | n_prompt_cached |
      | 8        | 2               |

  Scenario Outline: Erase Slot
    Given a user prompt "What is the capital of France?"
    And   using slot id 1
    And   a completion request with no api error
    Then  24 tokens are predicted
    And   <n_prompt> prompt tokens are processed
    When  the slot 1 is erased
    Then  the server responds with status code 200
    Given a user prompt "What is the capital of France?"
    And   a completion request with no api error
    Then  24 tokens are predicted
    And   <n_prompt> prompt tokens are processed

    @model.smollm2-135m
    Examples: SmolLM2-135M
      | n_prompt |
      | 8        |
