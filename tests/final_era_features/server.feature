# Scenarios in the style of llama.cpp's final behave suite (Nov 2024), with its phrases word for word.
# They name the HF file stories260K.gguf: set LLAMA_BDD_MODELS_DIR to a folder holding it (any small GGUF
# linked under that name runs them); without it they are skipped, naming the file.
# Expectations are structural (counts, flags, fields), not the text of one model.
@llama.cpp
@server
Feature: llama.cpp server (final-era phrases)

  Background: Server startup
    Given a server listening on localhost:8080
    And   a model file tinyllamas/stories260K.gguf from HF repo ggml-org/models
    And   a model file test-model.gguf
    And   a model alias tinyllama-2
    And   42 as server seed
    And   1024 KV cache size
    And   128 as batch size
    And   128 as ubatch size
    And   2 slots
    And   64 server max tokens to predict
    And   prometheus compatible metrics exposed
    And   2 threads
    And   0 GPU offloaded layers
    Then  the server is starting
    Then  the server is healthy

  Scenario: Health
    Then the server is ready
    And  all slots are idle

  Scenario Outline: Completion
    Given a prompt <prompt>
    And   <n_predict> max tokens to predict
    And   0.0 temperature
    And   a completion request with no api error
    Then  <n_predicted> tokens are predicted matching \w+
    And   the completion is <truncated> truncated
    And   <n_prompt> prompt tokens are processed
    And   prometheus metrics are exposed
    And   metric llamacpp:tokens_predicted is <n_predicted>

    Examples: Prompts
      | prompt                           | n_predict | n_prompt | n_predicted | truncated |
      | I believe the meaning of life is | 8         | -1       | 8           | not       |
      | Write a joke about AI            | 256       | -1       | 64          | not       |

  Scenario: Prompt tokens processed are the prompt's tokens
    Given a prompt What is the capital of France?
    And   8 max tokens to predict
    And   a completion request with no api error
    Then  8 tokens are predicted
    And   7 prompt tokens are processed

  Scenario Outline: OAI Compatibility
    Given a model <model>
    And   a system prompt <system_prompt>
    And   a user prompt <user_prompt>
    And   <max_tokens> max tokens to predict
    And   streaming is <enable_streaming>
    Given an OAI compatible chat completions request with no api error
    Then  <n_predicted> tokens are predicted
    And   <n_prompt> prompt tokens are processed
    And   the completion is <truncated> truncated

    Examples: Prompts
      | model        | system_prompt               | user_prompt                          | max_tokens | n_prompt | n_predicted | enable_streaming | truncated |
      | llama-2      | Book                        | What is the best book                | 8          | -1       | 8           | disabled         |           |
      | codellama70b | You are a coding assistant. | Write the fibonacci function in c++. | 16         | -1       | 16          | enabled          |           |

  Scenario Outline: OAI Compatibility w/ response format
    Given a model test
    And   a system prompt test
    And   a user prompt <user_prompt>
    And   a response format <response_format>
    And   10 max tokens to predict
    Given an OAI compatible chat completions request with no api error
    Then  <n_predicted> tokens are predicted matching <re_content>

    Examples: Prompts
      | user_prompt     | response_format                                     | n_predicted | re_content |
      | What is the answer? | {"type": "json_object", "schema": {"const": "42"}} | 4           | "42"       |

  Scenario: Tokenize / Detokenize
    When tokenizing:
    """
    What is the capital of France ?
    """
    Then tokens can be detokenized
    And  tokens do not begin with BOS

  # BOS token is N names the token the checks call BOS: here the first token of this text, so that
  # 'tokens begin with BOS' and 'first token is removed' are exercised whatever the model's own BOS is
  Scenario: Tokenize w/ special tokens
    Given adding special tokens
    When  tokenizing:
    """
    What is the capital of Germany?
    """
    Given BOS token is 3838
    Then  tokens begin with BOS
    Given first token is removed
    Then  tokens do not begin with BOS

  Scenario: Tokenize with pieces
    When  tokenizing with pieces
    """
    What is the capital of Germany?
    媽
    """
    Then  tokens are given with pieces

  Scenario: Models available
    Given available models
    Then  1 models are supported
    Then  model 0 is identified by tinyllama-2
    Then  model 0 is trained on 8192 tokens context
