@server @templates
Feature: Chat templates
  --chat-template NAME picks one of the templates built into llama-server, --chat-template-file reads a
  Jinja file; /apply-template shows the prompt the template renders, chat_template_kwargs reach the
  template's variables, and /props reports what the template can do (chat_template_caps).

  Background: One slot
    Given a server listening on localhost:8080
    And   a model file default
    And   1 slots
    And   512 KV cache size
    And   a system prompt You are a helpful assistant.
    And   a user prompt What is the capital of France?

  # With Jinja on (the default) --chat-template takes its value as a Jinja source, so "llama3" would render
  # the text "llama3"; the built-in templates are used by name with --no-jinja given before it (as --help says).
  Scenario Outline: The built-in template <name> renders the <family> turn markers
    Given the server option --no-jinja
    And   the built-in chat template <name>
    Then  the server is starting
    When  the template renders the prompts
    Then  the rendered prompt shows the <family> markers

    Examples:
      | name   | family |
      | chatml | chatml |
      | llama3 | llama3 |
      | gemma  | gemma  |
      | phi3   | phi3   |

  Scenario: A template file renders its own markers, and chat_template_kwargs reach its variables
    Given the chat template file tools-hermes.jinja
    Then  the server is starting
    When  the template renders the prompts
    Then  the rendered prompt shows the chatml markers
    And   the rendered prompt lacks "# Style:"
    When  the template renders the prompts with chat_template_kwargs {"house_style": "terse"}
    Then  the rendered prompt contains "You are a helpful assistant.\n# Style: terse<|im_end|>"

  Scenario: enable_thinking false in chat_template_kwargs closes the think block of the template
    Given the chat template file think.jinja
    Then  the server is starting
    When  the template renders the prompts
    Then  the rendered prompt contains "<|im_start|>assistant\n<think>\n"
    And   the rendered prompt lacks "</think>"
    When  the template renders the prompts with chat_template_kwargs {"enable_thinking": false}
    Then  the rendered prompt contains "<|im_start|>assistant\n<think>\n\n</think>\n\n"

  Scenario Outline: /props reports the capabilities of the template (<template>)
    Given <template setting>
    Then  the server is starting
    Then  the chat template capability supports_tools is <tools>
    And   the chat template capability supports_tool_calls is <tools>
    And   the chat template capability supports_parallel_tool_calls is <tools>
    And   the chat template capability supports_system_role is true

    Examples:
      | template      | template setting                          | tools |
      | SmolLM2's own | the server option --jinja                 | false |
      | tools-hermes  | the chat template file tools-hermes.jinja | true  |
      | think         | the chat template file think.jinja        | false |

  Scenario Outline: The chat input tokens agree with the usage of the same chat (<path>)
    Then  the server is starting
    Given 2 max tokens to predict
    When  a chat completion is requested from /v1/chat/completions with raw HTTP
    Then  <path> counts the input tokens of the last chat as its usage does

    Examples:
      | path                                  |
      | /v1/chat/completions/input_tokens     |
      | /chat/completions/input_tokens        |
