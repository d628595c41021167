# frozen_string_literal: true

require "openssl"

module Relay
  module Verify
    # Parsing and checking the two kinds of verification key.
    module Keys
      # The DER header of an X.509 SubjectPublicKeyInfo for a raw Ed25519 key.
      ED25519_SPKI_PREFIX = ["302a300506032b6570032100"].pack("H*").freeze

      module_function

      # Canonical standard base64 with padding, or nil.
      def decode_strict(text)
        raw = text.unpack1("m0")
        [raw].pack("m0") == text ? raw : nil
      rescue ArgumentError
        nil
      end

      # A v1 key: an HMAC-SHA256 secret.
      class Hmac
        def initialize(secret)
          @secret = secret
        end

        def version
          "v1"
        end

        def verify(content, signature)
          expected = OpenSSL::HMAC.digest("SHA256", @secret, content)
          # Constant time: the lengths are public, the bytes are not.
          expected.bytesize == signature.bytesize && OpenSSL.fixed_length_secure_compare(expected, signature)
        end

        def inspect
          "HmacKey(<redacted>)"
        end
        alias to_s inspect
      end

      # A v1a key: an Ed25519 public key.
      class Ed25519
        def initialize(text, raw)
          @text = text
          @key = OpenSSL::PKey.read(ED25519_SPKI_PREFIX + raw)
        rescue OpenSSL::PKey::PKeyError
          raise InvalidKeyError, "the public key is not a valid Ed25519 key"
        end

        def version
          "v1a"
        end

        def verify(content, signature)
          return false unless signature.bytesize == 64

          @key.verify(nil, signature, content)
        rescue OpenSSL::PKey::PKeyError
          false
        end

        def inspect
          "Ed25519Key(#{@text})"
        end
        alias to_s inspect
      end

      def parse(input)
        raise InvalidKeyError, "a key is a string" unless input.is_a?(String)

        text = input.strip
        if text.start_with?("whsec_")
          raw = decode_strict(text.delete_prefix("whsec_"))
          raise InvalidKeyError, "the key is not valid base64" if raw.nil?
          unless raw.bytesize.between?(24, 64)
            raise InvalidKeyError, "the key has #{raw.bytesize} bytes; an HMAC secret has 24 to 64 bytes"
          end

          Hmac.new(raw)
        elsif text.start_with?("whpk_")
          raw = decode_strict(text.delete_prefix("whpk_"))
          raise InvalidKeyError, "the key is not valid base64" if raw.nil?
          unless raw.bytesize == 32
            raise InvalidKeyError, "the key has #{raw.bytesize} bytes; an Ed25519 public key has 32 bytes"
          end

          Ed25519.new(text, raw)
        elsif text.start_with?("whsk_")
          raise InvalidKeyError, "this is an Ed25519 signing key (whsk_); verify with its public key " \
                                 "(whpk_) and keep the signing key out of consumers"
        else
          raise InvalidKeyError, "a verification key starts with whsec_ (v1) or whpk_ (v1a)"
        end
      end
    end
  end
end
